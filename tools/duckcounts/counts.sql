-- automium-counts-v1 rows from a table of trials, one row per attempt.
-- Portable: DuckDB, BigQuery (GoogleSQL) and Spark SQL all run it as is
-- (docs/scale.md). Columns of trials:
--   planner_id, app_id, journey_id  the run's planner, app and journey
--   run_id                          one value per run of the journey by the planner
--   attempt                         1 for the first attempt, 2 for the first retry, ...
--   status                          'passed', 'failed' or 'error' (infrastructure: not evaluable)
--   input_tokens, output_tokens     the attempt's tokens; NULL when not recorded
--   recovery_triggered, recovered   the attempt's recovery, as in automium's Trial
WITH runs AS (
  SELECT
    planner_id, app_id, journey_id, run_id,
    MAX_BY(status, attempt) AS final_status,
    COUNT(*) AS attempts,
    SUM(input_tokens) AS input_tokens,
    SUM(output_tokens) AS output_tokens,
    MAX(CASE WHEN input_tokens IS NULL OR output_tokens IS NULL THEN 1 ELSE 0 END) AS tokens_unknown,
    MAX(CASE WHEN recovery_triggered THEN 1 ELSE 0 END) AS recovery_triggered,
    MIN(CASE WHEN recovery_triggered AND NOT recovered THEN 0 ELSE 1 END) AS recovered
  FROM trials
  GROUP BY planner_id, app_id, journey_id, run_id
)
SELECT
  planner_id,
  app_id,
  journey_id,
  SUM(CASE WHEN final_status <> 'error' THEN 1 ELSE 0 END) AS runs,
  SUM(CASE WHEN final_status = 'passed' THEN 1 ELSE 0 END) AS passes,
  SUM(CASE WHEN final_status = 'passed' AND attempts = 1 THEN 1 ELSE 0 END) AS first_attempt_passes,
  SUM(CASE WHEN final_status = 'error' THEN 1 ELSE 0 END) AS not_evaluable,
  COALESCE(SUM(CASE WHEN final_status <> 'error' AND tokens_unknown = 0 THEN input_tokens END), 0) AS input_tokens,
  COALESCE(SUM(CASE WHEN final_status <> 'error' AND tokens_unknown = 0 THEN output_tokens END), 0) AS output_tokens,
  SUM(CASE WHEN final_status <> 'error' AND tokens_unknown = 1 THEN 1 ELSE 0 END) AS tokens_unknown,
  SUM(CASE WHEN final_status <> 'error' AND recovery_triggered = 1 THEN 1 ELSE 0 END) AS recovery_triggered,
  SUM(CASE WHEN final_status <> 'error' AND recovery_triggered = 1 AND recovered = 1 THEN 1 ELSE 0 END) AS recovered
FROM runs
GROUP BY planner_id, app_id, journey_id
ORDER BY planner_id, journey_id
