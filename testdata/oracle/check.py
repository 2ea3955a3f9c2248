#!/usr/bin/python3
"""Independent oracle for automium's comparison reports (issue 26).

Reads the cases TestOracleCases wrote (AUTOMIUM_ORACLE_OUT) and recomputes,
from each case's raw trials alone, with Debian's python3-scipy and
python3-statsmodels:

  - Wilson 95% intervals of the pass rate and the first-attempt pass rate
    (statsmodels proportion_confint, method="wilson");
  - tau2-bench's pass^k, mean over journeys of C(c,k)/C(n,k), by first
    attempts (exact binomials, scipy.special.comb(exact=True));
  - per shared journey of every pair, the two-sided Fisher exact p
    (scipy.stats.fisher_exact);
  - the journey-level estimate, standard error, t-test p with G-1 degrees of
    freedom, 95% interval and 80%-power minimum detectable effect
    (scipy.stats.t);
  - Holm across pairs (statsmodels multipletests, method="holm");

and compares them with Go's unrounded figures to 1e-9 and with the report's
rounded figures to their 6 decimals; then it re-derives each verdict and each
journey flag from those numbers. Exit status 1 on any disagreement.
"""
import json
import math
import sys
from fractions import Fraction

from scipy import stats
from scipy.special import comb
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

TOL = 1e-9  # Go's unrounded figures against the oracle's
ROUND = 1e-6 + 1e-12  # the report keeps 6 decimals
MIN_DECISIVE = 6
ALPHA = 0.05

failures = []


def check(name, got, want, tol=TOL):
    if got is None or want is None or not math.isfinite(got) or abs(got - want) > tol:
        failures.append(f"{name}: got {got!r}, want {want!r}")


def tallies(case):
    """Per planner, per journey index: [runs, passes, first, rescued, reps{rep: first passed}]."""
    out = [dict() for _ in case["planners"]]
    for p, j, rep, passed, attempts, not_evaluable in case["trials"]:
        if not_evaluable:
            continue
        t = out[p].setdefault(j, [0, 0, 0, 0, {}])
        first = bool(passed) and attempts <= 1
        t[0] += 1
        t[1] += passed
        t[2] += first
        t[3] += bool(passed) and not first
        t[4][rep] = first
    return out


def pair_diffs(case, ta, tb):
    rows = []
    for j in sorted(set(ta) & set(tb), key=lambda j: case["journeys"][j]):
        a, b = ta[j], tb[j]
        if case["matched"]:
            common = sorted(set(a[4]) & set(b[4]))
            if not common:
                continue
            m = len(common)
            bo = sum(1 for r in common if a[4][r] and not b[4][r])
            co = sum(1 for r in common if b[4][r] and not a[4][r])
            d, v = (bo - co) / m, (bo + co + 1) / (m + 2) / m
        else:
            d = a[2] / a[0] - b[2] / b[0]
            pa, pb = (a[2] + 1) / (a[0] + 2), (b[2] + 1) / (b[0] + 2)
            v = pa * (1 - pa) / a[0] + pb * (1 - pb) / b[0]
        rows.append((j, a, b, d, v))
    return rows


def journey_test(diffs, floors):
    g = len(diffs)
    if g == 0:
        return dict(mean=0.0, se=1.0, p=1.0, lower=-1.0, upper=1.0, mde=1.0)
    mean = math.fsum(diffs) / g
    floor = math.sqrt(math.fsum(floors)) / g
    if g < 2:
        return dict(mean=mean, se=floor, p=1.0, lower=-1.0, upper=1.0, mde=1.0)
    s = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / (g - 1))
    se = max(s / math.sqrt(g), floor)
    df = g - 1
    p = 2 * stats.t.sf(abs(mean / se), df)
    q975, q80 = stats.t.ppf(0.975, df), stats.t.ppf(0.80, df)
    return dict(mean=mean, se=se, p=min(1.0, p), lower=max(-1.0, mean - q975 * se),
                upper=min(1.0, mean + q975 * se), mde=min(1.0, (q975 + q80) * se))


def check_case(case):
    name = case["name"]
    rep = case["report"]
    tal = tallies(case)
    for p, t in enumerate(tal):
        pr, go = rep["planners"][p], case["planner"][p]
        runs = sum(v[0] for v in t.values())
        for key, idx, gow in (("passRate", 1, go["wilson"]), ("firstAttemptPassRate", 2, go["firstWilson"])):
            x = sum(v[idx] for v in t.values())
            check(f"{name} p{p} {key}.successes", pr[key]["successes"], x, 0)
            check(f"{name} p{p} {key}.n", pr[key]["n"], runs, 0)
            if runs:
                lo, hi = proportion_confint(x, runs, alpha=0.05, method="wilson")
                check(f"{name} p{p} {key} wilson lower", gow[0], lo)
                check(f"{name} p{p} {key} wilson upper", gow[1], hi)
                check(f"{name} p{p} {key} reported lower", pr[key]["wilson95"]["lower"], lo, ROUND)
                check(f"{name} p{p} {key} reported upper", pr[key]["wilson95"]["upper"], hi, ROUND)
        evaluated = [v for v in t.values() if v[0] > 0]
        kmax = min((v[0] for v in evaluated), default=0)
        check(f"{name} p{p} pass^k length", len(pr["repeatability"]["passAtK"]), kmax, 0)
        for k in range(1, kmax + 1):
            want = sum(Fraction(comb(v[2], k, exact=True), comb(v[0], k, exact=True)) for v in evaluated) / len(evaluated)
            check(f"{name} p{p} pass^{k}", go["passAtK"][k - 1], float(want))
            check(f"{name} p{p} reported pass^{k}", pr["repeatability"]["passAtK"][k - 1]["value"], float(want), ROUND)
    ps = []
    i = 0
    for a in range(len(tal)):
        for b in range(a + 1, len(tal)):
            pc, go = rep["pairs"][i], case["pairs"][i]
            rows = pair_diffs(case, tal[a], tal[b])
            want = journey_test([r[3] for r in rows], [r[4] for r in rows])
            label = f"{name} pair {a}-{b}"
            check(f"{label} shared journeys", pc["sharedJourneys"], len(rows), 0)
            for k, (j, ta, tb, d, _) in enumerate(rows):
                check(f"{label} d[{k}]", (go["diffs"] or [None] * len(rows))[k], d)
                fp = stats.fisher_exact([[ta[2], ta[0] - ta[2]], [tb[2], tb[0] - tb[2]]]).pvalue
                check(f"{label} {case['journeys'][j]} fisher", go["fisherP"][k], fp)
                row = pc["journeys"][k]
                check(f"{label} {case['journeys'][j]} reported fisher", row["fisherP"], fp, ROUND)
                mixed = lambda t: t[3] > 0 or 0 < t[2] < t[0]
                ra, rb = ta[2] / ta[0], tb[2] / tb[0]
                flag = ("regressed" if fp <= ALPHA and rb < ra else "improved" if fp <= ALPHA and rb > ra
                        else "flaky" if mixed(ta) or mixed(tb) else "unchanged" if ra == rb else "inconclusive")
                if abs(fp - ALPHA) > 1e-9 and row["flag"] != flag:
                    failures.append(f"{label} {case['journeys'][j]}: flag {row['flag']!r}, oracle {flag!r}")
            for key, goKey, repKey in (("mean", "mean", "meanDifference"), ("se", "se", "standardError"), ("p", "p", "p"),
                                       ("mde", "mde", "minDetectableEffect80")):
                check(f"{label} {key}", go[goKey], want[key])
                check(f"{label} reported {key}", pc[repKey], want[key], ROUND)
            check(f"{label} lower", go["lower"], want["lower"])
            check(f"{label} upper", go["upper"], want["upper"])
            check(f"{label} reported lower", pc["difference95"]["lower"], want["lower"], ROUND)
            check(f"{label} reported upper", pc["difference95"]["upper"], want["upper"], ROUND)
            ps.append(want["p"])
            i += 1
    if ps:
        holm = multipletests(ps, alpha=ALPHA, method="holm")[1]
        for i, h in enumerate(holm):
            pc = rep["pairs"][i]
            check(f"{name} pair {i} holm", case["holmP"][i], h)
            check(f"{name} pair {i} reported holm", pc["holmP"], h, ROUND)
            lo, hi = pc["difference95"]["lower"], pc["difference95"]["upper"]
            verdict = "indistinguishable"
            if pc["sharedJourneys"] >= MIN_DECISIVE and h <= ALPHA:
                verdict = "A better" if lo > 0 else "B better" if hi < 0 else verdict
            if abs(h - ALPHA) > 1e-9 and pc["verdict"] != verdict:
                failures.append(f"{name} pair {i}: verdict {pc['verdict']!r}, oracle {verdict!r}")
            if pc["verdict"] in ("A better", "B better") and lo <= 0 <= hi:
                failures.append(f"{name} pair {i}: {pc['verdict']} beside an interval covering 0")


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    for case in cases:
        check_case(case)
    pairs = sum(len(c["pairs"]) for c in cases)
    rows = sum(len(p["fisherP"]) for c in cases for p in c["pairs"])
    if failures:
        print(f"oracle: {len(failures)} disagreements over {len(cases)} cases", file=sys.stderr)
        for line in failures[:50]:
            print("  " + line, file=sys.stderr)
        sys.exit(1)
    print(f"oracle: {len(cases)} cases, {pairs} pairs, {rows} journey rows agree with scipy and statsmodels to {TOL:g}")


if __name__ == "__main__":
    main()
