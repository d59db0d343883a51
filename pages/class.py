"""A live class, the students' side: ``class?code=XXXXX`` shows only the question on the teacher's screen.

No sign-in and no name: a phone (390 px) gets the question and its options, one tap answers, and the teacher's
screen counts it (evalstats_app.live_class; the teacher runs the class from the lesson plan in presenter mode).
Not in the sidebar: students arrive by the link or the QR code.
"""

import streamlit as st

from evalstats_app import live_class

st.set_page_config(page_title="Class · evalstats", page_icon="📊", layout="centered",
                   initial_sidebar_state="collapsed")
live_class.student_page()
