# The evalstats app in a container: Streamlit on port 8501, run as a non-root user, with the pinned
# runtime requirements. Build and run:
#   docker build -t evalstats .
#   docker run --rm -p 8501:8501 evalstats        # then open http://localhost:8501
#   docker run --rm -e PORT=9000 -p 9000:9000 evalstats   # a host that chooses the port through $PORT
# tests/test_container.py checks this file's pieces and runs its CMD (as the container would) locally.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# A user without root rights runs the server.
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin evalstats
WORKDIR /app

# The pinned runtime requirements first, so code changes reuse this layer.
COPY requirements.txt ./
RUN pip install -r requirements.txt

COPY app.py ./
COPY .streamlit/ ./.streamlit/
COPY pages/ ./pages/
COPY content/ ./content/
COPY examples/ ./examples/
COPY evalstats_core/ ./evalstats_core/
COPY evalstats_app/ ./evalstats_app/

USER evalstats
# The live class's SQLite store in the user's home (the app folder is not writable); EVALSTATS_DATABASE_URL
# names a PostgreSQL database instead, shared by several containers.
ENV EVALSTATS_CLASS_DB=/home/evalstats/class_data/classes.sqlite3
# The port: $PORT when the host sets it (Cloud Run, Heroku-style hosts, Fly.io), else 8501.
ENV PORT=8501
EXPOSE 8501

# Streamlit answers "ok" on /_stcore/health once it serves (the slim image has Python, not curl).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:%s/_stcore/health' % os.environ.get('PORT', '8501'), timeout=4).read() != b'ok')"]

# Settings stated here as well as in .streamlit/config.toml: listen on every interface of the container
# (0.0.0.0: the host's port mapping or proxy reaches it; outside a container evalbars-app and
# scripts/app.sh listen on 127.0.0.1), on $PORT; no file watcher (the code does not change in a
# container), uploads up to 200 MB (the workbench says so), Streamlit's CORS and XSRF protection on (keep
# them on behind a proxy that serves the app on its own origin), no usage statistics. Shell form, so that
# $PORT is read when the container starts; `exec` makes the server PID 1, so `docker stop` (SIGTERM)
# reaches it.
CMD exec python -m streamlit run app.py \
    --server.address=0.0.0.0 --server.port="${PORT:-8501}" --server.headless=true \
    --server.fileWatcherType=none --server.maxUploadSize=200 \
    --server.enableCORS=true --server.enableXsrfProtection=true \
    --browser.gatherUsageStats=false
