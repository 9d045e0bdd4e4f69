"""Abel's bound for two rotated terms, as one proof script (coqineq_scripts appends it to a
``<=`` conclusion's closer): ``|h0 e(u) + h1 e(v)| <= M (|e(u) + e(v)| + |e(u)|)`` from
``|h0 - h1| <= M`` and ``|h1| <= M``, where ``e(t) = (sin t, cos t)`` and the norms are
``sqrt`` of sums of squares (RoPE's long-range decay argument for two pairs).  The shape is
recognised on the statement (SymPy compares the parts); Coq proves every step.
"""

from __future__ import annotations

import sympy as sp

TIMEOUT = 20  # seconds (Coq's [timeout]: a failure, never a hang)


def _unit_angle(P):
    """``u`` when ``P`` is ``sin(u)**2 + cos(u)**2``, else None."""
    if not isinstance(P, sp.Add) or len(P.args) != 2:
        return None
    fs = {}
    for t in P.args:
        if not (isinstance(t, sp.Pow) and t.exp == 2 and isinstance(t.base, sp.sin | sp.cos)):
            return None
        fs[type(t.base)] = t.base.args[0]
    return fs.get(sp.sin) if fs.get(sp.sin) is not None and fs.get(sp.sin) == fs.get(sp.cos) \
        else None


def abel_script(st, r, pr) -> str | None:
    """Abel's bound for two rotated terms: ``|h0 e(u) + h1 e(v)| <= M (|e(u) + e(v)| +
    |e(u)|)`` from ``|h0 - h1| <= M`` and ``|h1| <= M`` (``e(t) = (sin t, cos t)``, norms as
    ``sqrt`` of sums of squares): ``h0 e(u) + h1 e(v) = (h0 - h1) e(u) + h1 (e(u) + e(v))``,
    the cross term bounded by Cauchy-Schwarz (Lagrange's identity, ``ring``), then ``nra``."""
    if r.op != "<=" or not (isinstance(r.lhs, sp.Pow) and r.lhs.exp == sp.Rational(1, 2)):
        return None
    m, rest = r.rhs.as_independent(sp.sqrt(sp.Symbol("_")).func, as_Add=False)
    if not (isinstance(m, sp.Symbol) and isinstance(rest, sp.Add) and len(rest.args) == 2
            and all(isinstance(a, sp.Pow) and a.exp == sp.Rational(1, 2) for a in rest.args)):
        return None
    roots = [a.base for a in rest.args]
    units = [_unit_angle(q) for q in roots]
    if units.count(None) != 1:
        return None
    u = next(x for x in units if x is not None)
    big = roots[units.index(None)]
    vs = [n.args[0] for n in big.atoms(sp.sin) if n.args[0] != u]
    if len(vs) != 1:
        return None
    v = vs[0]
    su, cu, sv, cv = sp.sin(u), sp.cos(u), sp.sin(v), sp.cos(v)
    if sp.expand(big - ((su + sv) ** 2 + (cu + cv) ** 2)) != 0:
        return None
    h1 = next((h.lhs.args[0] for h in st.hyps if h.op == "<=" and h.rhs == m and
               isinstance(h.lhs, sp.Abs) and isinstance(h.lhs.args[0], sp.Symbol)), None)
    d01 = next((h.lhs.args[0] for h in st.hyps if h.op == "<=" and h.rhs == m and
                isinstance(h.lhs, sp.Abs) and h1 is not None and
                isinstance(h.lhs.args[0] + h1, sp.Symbol)), None)
    if h1 is None or d01 is None:
        return None
    h0 = d01 + h1
    A = r.lhs.base
    if sp.expand(A - ((h0 * su + h1 * sv) ** 2 + (h0 * cu + h1 * cv) ** 2)) != 0:
        return None
    T = pr.term
    SU, CU, SV, CV, H0, H1, M = (T(x) for x in (su, cu, sv, cv, h0, h1, m))
    a, one = f"({H0} - {H1})", f"({SU} * {SU} + {CU} * {CU})"
    cross = f"({SU} * ({CU} + {CV}) - {CU} * ({SU} + {SV}))"
    steps = [
        "intros", f"pose proof (pyth_sq ({T(u)})) as pe_P0",
        f"replace ({T(roots[units.index(u)])}) with 1 by nra", "rewrite sqrt_1",
        f"set (pe_Q := {T(big)}) in *",
        "assert (pe_HQ : 0 <= pe_Q) by (unfold pe_Q; apply Rplus_le_le_0_compat; apply pow2_ge_0)",
        "pose proof (sqrt_sqrt pe_Q pe_HQ) as pe_Hq", "pose proof (sqrt_pos pe_Q) as pe_Hq0",
        "set (pe_q := sqrt pe_Q) in *", "clearbody pe_q",
        f"set (pe_D := {SU} * ({SU} + {SV}) + {CU} * ({CU} + {CV}))",
        f"assert (pe_HE : {one} * pe_Q - pe_D * pe_D = {cross} ^ 2) by (unfold pe_Q, pe_D; ring)",
        f"replace {one} with 1 in pe_HE by lra", f"pose proof (pow2_ge_0 {cross})",
        "assert (pe_HD2 : pe_D * pe_D <= pe_q * pe_q) by lra",
        "assert (pe_HDq : Rabs pe_D <= pe_q) by (apply Rabs_le; split; nra)",
        f"assert (pe_HM : 0 <= {M}) by (pose proof (Rabs_pos {H1}); lra)",
        "match goal with Ha : Rabs (_ - _) <= _, Hb : Rabs ?h <= _ |- _ => "
        f"constr_eq h {H1}; "
        f"assert (pe_Hab : Rabs ({a} * {H1}) <= {M} * {M}) by (rewrite Rabs_mult; "
        "apply Rmult_le_compat; [apply Rabs_pos | apply Rabs_pos | exact Ha | exact Hb]); "
        f"assert (pe_Ha2 : {a} * {a} <= {M} * {M}) by (pose proof (Rsqr_abs {a}) as pe_Hs; "
        "unfold Rsqr in pe_Hs; rewrite pe_Hs; apply Rmult_le_compat; "
        "[apply Rabs_pos | apply Rabs_pos | exact Ha | exact Ha]); "
        f"assert (pe_Hb2 : {H1} * {H1} * pe_Q <= {M} * {M} * pe_Q) by (apply Rmult_le_compat_r; "
        f"[exact pe_HQ | pose proof (Rsqr_abs {H1}) as pe_Hs; unfold Rsqr in pe_Hs; rewrite pe_Hs; "
        "apply Rmult_le_compat; [apply Rabs_pos | apply Rabs_pos | exact Hb | exact Hb]]) end",
        f"assert (pe_HabD : {a} * {H1} * pe_D <= {M} * {M} * pe_q) by (apply Rle_trans with "
        f"(Rabs ({a} * {H1} * pe_D)); [apply Rle_abs | rewrite (Rabs_mult ({a} * {H1}) pe_D); "
        "apply Rmult_le_compat; [apply Rabs_pos | apply Rabs_pos | exact pe_Hab | exact pe_HDq]])",
        f"assert (pe_HA : {T(A)} = {a} * {a} * {one} + {H1} * {H1} * pe_Q "
        f"+ 2 * ({a} * {H1} * pe_D)) by (unfold pe_Q, pe_D; ring)", "rewrite pe_HA",
        f"assert (pe_HMq : {M} * {M} * (pe_q * pe_q) = {M} * {M} * pe_Q) "
        "by (rewrite pe_Hq; ring)",
        "match goal with |- sqrt _ <= ?B => rewrite <- (sqrt_square B) by "
        "(apply Rmult_le_pos; lra) end",
        "apply sqrt_le_1_alt", f"replace {one} with 1 by lra", "nra"]
    return f"timeout {TIMEOUT} (solve [{'; '.join(steps)}])"
