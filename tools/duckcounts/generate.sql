-- Generated trials for the scale check: $runs runs of $journeys journeys by
-- $planners planners, expanded to one row per attempt. Every draw is a hash
-- of the run number and $seed, so the table is the same on every machine.
CREATE TABLE trials AS
WITH runs AS (
  SELECT
    i AS run_id,
    i % $planners AS p,
    (i // $planners) % $journeys AS j,
    hash(i, $seed) AS h
  FROM range($runs) AS r(i)
), drawn AS (
  SELECT
    run_id, p, j,
    (h % 1000)::INTEGER AS u1,
    ((h >> 10) % 1000)::INTEGER AS u2,
    ((h >> 20) % 1000)::INTEGER AS u3,
    ((h >> 30) % 1000)::INTEGER AS u4,
    ((h >> 40) % 1000)::INTEGER AS u5,
    -- per-mille pass rate: the planner's skill and the journey's difficulty
    (450 + 60 * p + (hash(j, $seed) % 400))::INTEGER AS rate
  FROM runs
), outcome AS (
  SELECT
    run_id, p, j, u3, u4, u5,
    CASE WHEN u2 < 20 THEN 'error' WHEN u1 < rate THEN 'passed' ELSE 'failed' END AS final_status,
    CASE WHEN u3 < 100 THEN 2 WHEN u3 < 110 THEN 3 ELSE 1 END AS attempts
  FROM drawn
)
SELECT
  'planner-' || p AS planner_id,
  CASE WHEN j % 3 = 0 THEN 'docs-portal' ELSE 'storefront' END AS app_id,
  printf('journey-%05d', j) AS journey_id,
  run_id,
  a.attempt::INTEGER AS attempt,
  CASE WHEN a.attempt < attempts THEN 'failed' ELSE final_status END AS status,
  (300 + 7 * u4)::BIGINT AS latency_ms,
  CASE WHEN u5 < 15 AND a.attempt = attempts THEN NULL ELSE (800 + 3 * u4)::BIGINT END AS input_tokens,
  CASE WHEN u5 < 15 AND a.attempt = attempts THEN NULL ELSE (40 + u5)::BIGINT END AS output_tokens,
  (u3 < 150 AND a.attempt = attempts) AS recovery_triggered,
  (u3 < 150 AND u4 < 700 AND a.attempt = attempts) AS recovered
FROM outcome, LATERAL (SELECT unnest(range(1, attempts + 1)) AS attempt) AS a
