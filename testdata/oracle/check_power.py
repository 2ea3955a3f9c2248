#!/usr/bin/python3
"""Independent oracle for the power figures of modeled comparisons with
assumed pass rates (issue 26; docs/benchmarks.md, "Planning an experiment").

Reads the cases TestPowerOracleCases wrote (AUTOMIUM_POWER_ORACLE_OUT). Go
estimates the power of the report's decision rule for one pair (journey-level
t test with its within-journey floor, at least 6 journeys, p <= 0.05, the
interval rounded to 6 decimals excluding 0 in the assumed direction) from
1000 seeded simulated experiments. This script recomputes it without Go's
code, with numpy and scipy:

  - exact-*: G journeys with the same probabilities and 1 to 3 repetitions.
    Every outcome is enumerated (multisets of per-journey counts, with their
    multinomial probabilities), so the power is exact; Go's estimate must lie
    within 4 Monte Carlo standard errors of it.
  - modeled-*: the per-journey pass probabilities are recomputed from the
    model's formula and Go's lambdas (and their mean must be the assumed
    rate); then the decision rule is re-simulated with numpy's own generator
    (20000 experiments) and Go's power must agree within 4 combined standard
    errors. The plan is checked the same way: at Go's repetitionsFor80 and
    journeysFor80 the power is at least 0.8, one below it at most 0.8, each
    within 4 standard errors; an absent plan must be unreachable at the cap.
  - statsmodels' TTestPower (one-sample t on the journey differences, effect
    size mean/sd of the simulated differences) is printed beside each modeled
    case as a reading aid only: the report's floor and fixed journeys make the
    closed form an approximation, not an oracle.

Exit status 1 on any disagreement.
"""
import itertools
import json
import math
import sys

import numpy as np
from scipy import stats
from scipy.special import comb
from statsmodels.stats.power import TTestPower

ALPHA = 0.05
MIN_DECISIVE = 6
TARGET = 0.8
MAX_REPS = 100
MAX_JOURNEYS = 100  # PowerJourneysCap
SIMS_PY = 20000
K = 4.0  # standard errors of tolerance

failures = []


def go_round(x):
    """Go's math.Round(x*1e6)/1e6: half away from zero."""
    return math.copysign(math.floor(abs(x) * 1e6 + 0.5), x) / 1e6


def floor_var(c, n):
    p = (c + 1) / (n + 2)
    return p * (1 - p) / n


_tq = {}


def t_crit(df):
    if df not in _tq:
        _tq[df] = stats.t.ppf(0.975, df)
    return _tq[df]


def verdict(diffs, floor):
    """+1 A better, -1 B better, 0: the report's rule for one pair."""
    g = len(diffs)
    if g < MIN_DECISIVE:
        return 0
    mean = sum(diffs) / g
    s2 = sum((d - mean) ** 2 for d in diffs) / (g - 1)
    se = max(math.sqrt(s2) / math.sqrt(g), math.sqrt(floor) / g)
    t = mean / se
    tq = t_crit(g - 1)
    # p <= alpha exactly when |t| >= t(0.975); scipy's tail decides near it
    if abs(t) < tq * (1 - 1e-7) or (abs(t) <= tq * (1 + 1e-7) and 2 * stats.t.sf(abs(t), g - 1) > ALPHA):
        return 0
    half = tq * se
    if go_round(max(-1, mean - half)) > 0:
        return 1
    if go_round(min(1, mean + half)) < 0:
        return -1
    return 0


def want_of(case):
    return (case["rateA"] > case["rateB"]) - (case["rateA"] < case["rateB"])


def exact_power(case):
    n, g = case["reps"], len(case["pa"])
    pa, pb = case["pa"][0], case["pb"][0]
    outcomes = [(ca, cb) for ca in range(n + 1) for cb in range(n + 1)]
    prob = [stats.binom.pmf(ca, n, pa) * stats.binom.pmf(cb, n, pb) for ca, cb in outcomes]
    want = want_of(case)
    total = 0.0
    for ms in itertools.combinations_with_replacement(range(len(outcomes)), g):
        counts = np.bincount(ms, minlength=len(outcomes))
        # multinomial coefficient times the probabilities
        w = math.factorial(g)
        for c in counts:
            w //= math.factorial(int(c))
        pr = float(w) * math.prod(prob[i] ** int(c) for i, c in enumerate(counts))
        diffs = [outcomes[i][0] / n - outcomes[i][1] / n for i in ms]
        floor = sum(floor_var(outcomes[i][0], n) + floor_var(outcomes[i][1], n) for i in ms)
        v = verdict(diffs, floor)
        if v != 0 and (want == 0 or v == want):
            total += pr
    return total


def simulate(case, reps, g, rng, sims=SIMS_PY, return_diffs=False):
    """The rule's power by numpy simulation, vectorised over experiments."""
    pa = np.resize(np.array(case["pa"]), g)  # journey j uses journey j mod G0
    pb = np.resize(np.array(case["pb"]), g)
    ca = rng.binomial(reps, pa, size=(sims, g))
    cb = rng.binomial(reps, pb, size=(sims, g))
    d = ca / reps - cb / reps
    fa, fb = (ca + 1) / (reps + 2), (cb + 1) / (reps + 2)
    floor = (fa * (1 - fa) / reps + fb * (1 - fb) / reps).sum(axis=1)
    if g < MIN_DECISIVE:
        return (0.0, d, floor) if return_diffs else 0.0
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1)
    se = np.maximum(sd / math.sqrt(g), np.sqrt(floor) / g)
    t = mean / se
    p = 2 * stats.t.sf(np.abs(t), g - 1)
    half = stats.t.ppf(0.975, g - 1) * se
    lo = np.maximum(-1, mean - half)
    hi = np.minimum(1, mean + half)
    lo_r = np.sign(lo) * np.floor(np.abs(lo) * 1e6 + 0.5) / 1e6
    hi_r = np.sign(hi) * np.floor(np.abs(hi) * 1e6 + 0.5) / 1e6
    a_better = (p <= ALPHA) & (lo_r > 0)
    b_better = (p <= ALPHA) & (hi_r < 0)
    want = want_of(case)
    hits = {1: a_better, -1: b_better, 0: a_better | b_better}[want]
    if return_diffs:
        return hits.mean(), d, floor
    return hits.mean()


def se_of(p, n):
    return math.sqrt(max(p * (1 - p), 0.25 / n) / n)  # never 0: a figure of 0 or 1 is still an estimate


def model_probs(case, lam):
    out = []
    for weights, asserts, retries in zip(case["journeys"], case["asserts"], case["retries"]):
        p = math.exp(-lam * 0.5) ** asserts
        for w in weights:
            s = math.exp(-lam * w)
            p *= s + (1 - s) * (1 - (1 - case["rho"] * s) ** retries)
        out.append(p)
    return out


def main(path):
    with open(path) as f:
        cases = json.load(f)
    rng = np.random.default_rng(20261201)
    exact_n = modeled_n = plans = 0
    worst = 0.0
    for case in cases:
        name, pw = case["name"], case["power"]
        n_go = pw["simulatedExperiments"]
        go = pw["power"]
        if abs(pw["powerStandardError"] - go_round(math.sqrt(go * (1 - go) / n_go))) > 1e-6:
            failures.append(f"{name}: powerStandardError {pw['powerStandardError']} is not sqrt(p(1-p)/N)")
        if abs(pw["assumedDifference"] - go_round(case["rateA"] - case["rateB"])) > 1e-9:
            failures.append(f"{name}: assumedDifference {pw['assumedDifference']}")
        if name.startswith("exact-"):
            exact = exact_power(case)
            z = abs(go - exact) / se_of(exact, n_go)
            worst = max(worst, z)
            if z > K:
                failures.append(f"{name}: Go's power {go} vs exact {exact:.6f} ({z:.1f} SE)")
            exact_n += 1
            continue
        # The model's per-journey probabilities, from its formula.
        for side, lam, key, rate in (("A", case["lambda"][0], "pa", case["rateA"]), ("B", case["lambda"][1], "pb", case["rateB"])):
            mine = model_probs(case, lam)
            if max(abs(x - y) for x, y in zip(mine, case[key])) > 1e-12:
                failures.append(f"{name}: planner {side}'s per-journey probabilities differ from the model's formula")
            if abs(sum(mine) / len(mine) - rate) > 1e-9:
                failures.append(f"{name}: planner {side}'s mean probability {sum(mine) / len(mine)} is not the assumed {rate}")
        g0, reps = len(case["pa"]), case["reps"]
        py, d, floor = simulate(case, reps, g0, rng, return_diffs=True)
        z = abs(go - py) / math.hypot(se_of(py, n_go), se_of(py, SIMS_PY))
        worst = max(worst, z)
        if z > K:
            failures.append(f"{name}: Go's power {go} vs numpy re-simulation {py:.4f} ({z:.1f} SE)")
        modeled_n += 1
        # The closed form, as a reading aid.
        dbar, sd = d.mean(), d.std(ddof=1)
        binds = float((np.sqrt(floor) / g0 > d.std(axis=1, ddof=1) / math.sqrt(g0)).mean())
        tt = TTestPower().power(effect_size=abs(dbar) / sd, nobs=g0, alpha=ALPHA, alternative="two-sided") if sd > 0 and g0 >= 2 else float("nan")
        print(f"  {name}: Go {go:.3f}, numpy {py:.3f}, statsmodels TTestPower {tt:.3f} (floor binds in {binds:.0%} of experiments)")
        if want_of(case) == 0:
            continue
        tol = lambda p: K * math.hypot(se_of(TARGET, n_go), se_of(p, SIMS_PY))
        r80 = pw.get("repetitionsFor80")
        if r80 is None:
            p = simulate(case, MAX_REPS, g0, rng)
            if p > TARGET + tol(p):
                failures.append(f"{name}: no repetitionsFor80, yet power {p:.3f} at {MAX_REPS} repetitions")
        else:
            p = simulate(case, r80, g0, rng)
            if p < TARGET - tol(p):
                failures.append(f"{name}: repetitionsFor80 {r80} has power {p:.3f}")
            if r80 > 1:
                p = simulate(case, r80 - 1, g0, rng)
                if p > TARGET + tol(p):
                    failures.append(f"{name}: repetitionsFor80 {r80}, yet {r80 - 1} already has power {p:.3f}")
            plans += 1
        j80 = pw.get("journeysFor80")
        if j80 is None:
            p = simulate(case, reps, MAX_JOURNEYS, rng)
            if p > TARGET + tol(p):
                failures.append(f"{name}: no journeysFor80, yet power {p:.3f} at {MAX_JOURNEYS} journeys")
        else:
            p = simulate(case, reps, j80, rng)
            if p < TARGET - tol(p):
                failures.append(f"{name}: journeysFor80 {j80} has power {p:.3f}")
            if j80 > MIN_DECISIVE:
                p = simulate(case, reps, j80 - 1, rng)
                if p > TARGET + tol(p):
                    failures.append(f"{name}: journeysFor80 {j80}, yet {j80 - 1} already has power {p:.3f}")
            plans += 1
    for f in failures:
        print("FAIL", f)
    print(f"power oracle: {exact_n} exact designs, {modeled_n} modeled designs re-simulated, {plans} plans checked; "
          f"largest disagreement {worst:.2f} standard errors (tolerance {K}); {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
