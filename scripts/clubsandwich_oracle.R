#!/usr/bin/env Rscript
# CR2 + Satterthwaite oracle for evalstats (issue 9): R's clubSandwich values, written as JSON fixtures.
#
# Regenerate the committed fixtures (run from anywhere; CSV paths are relative to the repository root):
#
#     Rscript scripts/clubsandwich_oracle.R                     # -> tests/fixtures/clubsandwich.json
#     Rscript scripts/clubsandwich_oracle.R --out /tmp/cs.json [CSV ...]
#     python scripts/clubsandwich_oracle.py                     # rewrites the design CSVs, then runs this
#
# Without CSV arguments it reads examples/coding_12_repos.csv, examples/chat_5_sources.csv and every
# tests/fixtures/cr2_designs/*.csv. Needs clubSandwich (Debian: apt-get install r-cran-clubsandwich);
# the committed fixtures were made with R 4.2.2 and clubSandwich 0.5.8. tests/test_cr2_oracle.py reruns
# this script into a temporary file whenever Rscript and clubSandwich are present.
#
# Input: a wide CSV, one row per question: a 'question' column, an optional 'cluster' column, then one
# numeric column per model (no missing values). Without a cluster column every question is its own
# cluster: CR2 is then the CLT standard error and df_Satt = n - 1 (the one-sample / paired t-test).
#
# For every model y (its column) and for every pair (later column a minus earlier column b, the order of
# the CLI's comparisons when no baseline is given) on the per-question difference y = a - b:
#
#     ct <- coef_test(lm(y ~ 1), vcov = "CR2", cluster = g, test = "Satterthwaite")
#
# gives mean = ct$beta, se = ct$SE, t = ct$tstat, df = ct$df_Satt, p = ct$p_Satt. NOTE: for a model's
# mean, p_Satt tests mean = 0, a hypothesis evalstats does not report (only se and df are compared);
# for a pair it is the paired test of "no difference", compare()'s p_value.
#
# Numbers are written with 17 significant digits (sprintf "%.17g"), so every double round-trips exactly
# (jsonlite stops at 15 digits, so the JSON is written by hand below; no package but clubSandwich).

suppressPackageStartupMessages(library(clubSandwich))

file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
root <- normalizePath(file.path(dirname(sub("^--file=", "", file_arg[1])), ".."))
args <- commandArgs(trailingOnly = TRUE)
out <- file.path(root, "tests", "fixtures", "clubsandwich.json")
if (length(args) >= 2 && args[1] == "--out") {
  out <- args[2]
  args <- args[-(1:2)]
}
out <- normalizePath(out, mustWork = FALSE)  # before setwd: relative to the caller's directory
setwd(root)
if (length(args) == 0) {
  designs <- list.files(file.path("tests", "fixtures", "cr2_designs"), pattern = "\\.csv$", full.names = TRUE)
  args <- c("examples/coding_12_repos.csv", "examples/chat_5_sources.csv", sort(designs, method = "radix"))
}

num <- function(x) {
  if (is.null(x) || length(x) == 0 || is.na(x)) return("null")
  if (is.infinite(x)) stop("infinite value: ", x)
  sprintf("%.17g", x)
}
str_json <- function(s) paste0('"', gsub('"', '\\\\"', gsub("\\\\", "\\\\\\\\", s)), '"')
obj <- function(fields, indent) {  # fields: named character vector of already-encoded JSON values
  pad <- strrep("  ", indent)
  paste0("{\n", paste0(pad, "  ", str_json(names(fields)), ": ", fields, collapse = ",\n"), "\n", pad, "}")
}
arr <- function(items, indent) {
  if (length(items) == 0) return("[]")
  pad <- strrep("  ", indent)
  paste0("[\n", paste0(pad, "  ", items, collapse = ",\n"), "\n", pad, "]")
}

cr2 <- function(y, g) {
  ct <- coef_test(lm(y ~ 1), vcov = "CR2", cluster = g, test = "Satterthwaite")
  c(mean = ct$beta[1], se = ct$SE[1], t = ct$tstat[1], df = ct$df_Satt[1], p = ct$p_Satt[1])
}
fields <- function(r) vapply(r, num, "")

datasets <- character(0)
for (path in args) {
  header <- names(read.csv(path, check.names = FALSE, nrows = 1))
  labels <- intersect(c("question", "cluster"), header)
  d <- read.csv(path, check.names = FALSE, stringsAsFactors = FALSE,
                colClasses = setNames(rep("character", length(labels)), labels))
  clustered <- "cluster" %in% names(d)
  g <- if (clustered) d$cluster else as.character(seq_len(nrow(d)))  # no column: each question alone
  models <- setdiff(names(d), c("question", "cluster"))
  if (anyNA(d[models])) stop(path, ": missing scores; the oracle needs complete wide files")
  mrows <- character(0)
  for (m in models) {
    mrows <- c(mrows, obj(c(model = str_json(m), fields(cr2(d[[m]], g))), 3))
  }
  prows <- character(0)
  for (i in seq_along(models)) for (j in seq_along(models)) if (i < j) {
    a <- models[j]; b <- models[i]  # later minus earlier
    prows <- c(prows, obj(c(model = str_json(a), baseline = str_json(b), fields(cr2(d[[a]] - d[[b]], g))), 3))
  }
  datasets <- c(datasets, obj(c(
    name = str_json(sub("\\.csv$", "", basename(path))),
    path = str_json(path),
    md5 = str_json(unname(tools::md5sum(path))),
    n = num(nrow(d)),
    n_clusters = if (clustered) num(length(unique(g))) else "null",
    models = arr(mrows, 2),
    pairs = arr(prows, 2)
  ), 1))
}

top <- obj(c(
  generator = str_json("Rscript scripts/clubsandwich_oracle.R (see its header)"),
  call = str_json('clubSandwich::coef_test(lm(y ~ 1), vcov = "CR2", cluster = g, test = "Satterthwaite")'),
  note = str_json(paste("mean/se/t/df/p = beta/SE/tstat/df_Satt/p_Satt; a model's p tests mean = 0;",
                        "pairs are model minus baseline on the per-question difference (paired)")),
  r_version = str_json(paste(R.version$major, R.version$minor, sep = ".")),
  clubsandwich_version = str_json(as.character(packageVersion("clubSandwich"))),
  datasets = arr(datasets, 0)
), 0)
writeLines(top, out, useBytes = TRUE)
cat("wrote", out, "(", length(datasets), "datasets )\n")
