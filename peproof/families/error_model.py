"""Error model: a proved forward error bound for computing the encoding in a floating dtype.

Main statements
  ``error_model.relative_errors_compose``, ``error_model.angle_error_bound``,
  ``error_model.sin_cos_move_at_most_angle_error``, ``error_model.library_step_bound``,
  ``error_model.scale_step_bound``, ``error_model.storage_step_bound``.

Implementation notes
  The oracle judges a table by *any* recipe of this shape, run in a binary dtype ``P`` with unit
  roundoff ``u`` and smallest normal ``N`` (every rounding is ``fl(x) = x(1 + delta) + eta`` with
  ``|delta| <= u``, ``|eta| <= u N``, the standard model with gradual underflow):

  1. the position ``p + offset`` exact, or rounded (relative error ``e_p = C_POS u``);
  2. each frequency with relative error ``e_w = (C_OMEGA0 + C_OMEGA1 L) u max(1, N / omega_i)``,
     ``L = max_i |ln omega_i|`` (exp-of-log and power recipes lose ``|ln|``-sized multiples of
     ``u``, and interpolated logarithms lose them even where ``omega_i = 1``);
  3. the angle ``fl(p^ * omega^)`` rounded once;
  4. ``sin``/``cos`` within ``C_SIN`` ulps of their value at the angle perturbed by the
     argument reduction (relative ``C_RED u``); ``ulp(y) <= 2u (|y| + N)`` turns ulps into
     ``u``;
  5. the scale ``s`` rounded (``C_SCALE u``, 0 when ``s`` is exact in ``P``) and the product;
  6. the storage rounding, when the table is stored in a narrower format ``S``.

  Steps 1-3 and the reduction compose by ``relative_errors_compose`` into
  ``K = (1+e_p)(1+e_w)(1+u)(1+C_RED u) - 1`` and ``angle_error_bound`` gives the angle error
  ``Delta <= |theta| K + u N (1 + C_RED u)``; ``sin_cos_move_at_most_angle_error`` turns it into
  ``|f(theta~) - f(theta)| <= min(Delta, 2)``; the three step lemmas carry the bound through the
  library, the scale and the storage.  Each step's right-hand side is increasing in the previous
  error, so substituting one into the next (:func:`entry_bound`) is the composed bound; the oracle
  evaluates that very expression (:mod:`peproof.oracle.common.budget`).

  The constants are chosen to cover what libraries do (measured in ``tests/test_error_model_
  libraries.py`` for NumPy, PyTorch, mlx, keras, JAX: evidence, not the criterion).

References
  Seed 002, 6.A: the encoding "is deterministically computed from" the position; the bound says
  how far a floating-point computation of it may land from the real-valued one.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from peproof.claims import Claim, Falsifier, Le, Statement, Verdict, var
from peproof.families._common import only_for
from peproof.seeds import APPENDIX, src

# ----------------------------------------------------------------------------- constants


@dataclass(frozen=True)
class Constants:
    """The model's constants, in units of the pipeline dtype's unit roundoff ``u`` (or ulps)."""

    c_pos: int = 2  # a position not exact in P: fl(k) * fl(step) or fl(p + offset)
    c_omega0: int = 4  # frequency: constant part (exp / pow / division / 2 pi, each ~u)
    c_omega1: int = 3  # frequency: per unit of max |ln omega_i| (exp of a rounded logarithm)
    c_red: int = 1  # argument reduction, relative to the (rounded) angle
    c_sin: int = 2  # sin/cos within c_sin ulps of their value at the reduced argument
    c_scale: int = 2  # a scale not exact in P: sqrt or division, then rounded

    def as_dict(self) -> dict:
        return dict(self.__dict__)


CONSTANTS = Constants()

# ----------------------------------------------------------------------------- statements
SECTION = "6.A Sinusoidal positional encoding (original AIAYN)"
QUOTE = "it is deterministically computed from"

x, V_X = var("x", "real")
y, V_Y = var("y", "real")
a, V_A = var("a", "pos_real")
b, V_B = var("b", "pos_real")
theta, V_THETA = var("theta", "real")
rho, V_RHO = var("rho", "real")
delta, V_DELTA = var("delta", "real")
eta, V_ETA = var("eta", "real")
K, V_K = var("K", "pos_real")
e, V_E = var("e", "pos_real")
m, V_M = var("m", "pos_real")
p, V_P = var("p", "real")
q, V_Q = var("q", "real")
F, V_F = var("F", "real")  # the exact sin or cos value
G, V_G = var("G", "real")  # sin or cos at the perturbed angle
H, V_H = var("H", "real")  # what the library returns
T, V_T = var("T", "real")  # the scaled entry, in P
R, V_R = var("R", "real")  # the stored entry, in S
D, V_D = var("D", "pos_real")  # bound of |G - F|
E, V_E2 = var("E", "pos_real")  # bound of the error carried into a step
u, V_U = var("u", "pos_real")
cs, V_CS = var("c_s", "pos_real")
N, V_N = var("N", "pos_real")
s, V_S = var("s", "pos_real")
r, V_R2 = var("r", "pos_real")
uS, V_US = var("u_S", "pos_real")
NS, V_NS = var("N_S", "pos_real")

A = sp.Abs


def library_rhs(F_, D_, u_, cs_, N_):
    """Step 4: ``|H - F| <= D + 2 c_s u (|F| + D + N)``."""
    return D_ + 2 * cs_ * u_ * (A(F_) + D_ + N_)


def scale_rhs(F_, E_, s_, r_, u_, N_):
    """Step 5: ``|T - s F| <= s E (1 + r) + s |F| r + u N``."""
    return s_ * E_ * (1 + r_) + s_ * A(F_) * r_ + u_ * N_


def storage_rhs(V_, E_, uS_, NS_):
    """Step 6: ``|R - V| <= E (1 + u_S) + u_S (|V| + N_S)`` (``V`` the exact entry)."""
    return E_ * (1 + uS_) + uS_ * (A(V_) + NS_)


COMPOSE = Statement(
    Le(A((1 + x) * (1 + y) - 1), (1 + a) * (1 + b) - 1),
    (V_X, V_Y, V_A, V_B), hyps=(Le(A(x), a), Le(A(y), b)))

ANGLE = Statement(
    Le(A(theta * (1 + rho) + eta * (1 + delta) - theta), A(theta) * K + m * (1 + e)),
    (V_THETA, V_RHO, V_ETA, V_DELTA, V_K, V_E, V_M),
    hyps=(Le(A(rho), K), Le(A(delta), e), Le(A(eta), m)))

CHORD = Statement(
    (Le((sp.sin(p) - sp.sin(q)) ** 2, (p - q) ** 2),
     Le((sp.cos(p) - sp.cos(q)) ** 2, (p - q) ** 2),
     Le((sp.sin(p) - sp.sin(q)) ** 2, 4),
     Le((sp.cos(p) - sp.cos(q)) ** 2, 4)),
    (V_P, V_Q))

LIBRARY = Statement(
    Le(A(H - F), library_rhs(F, D, u, cs, N)),
    (V_D, V_U, V_CS, V_N, V_F, V_G, V_H),
    hyps=(Le(A(G - F), D), Le(A(H - G), 2 * cs * u * (A(G) + N))))

SCALE = Statement(
    Le(A(s * H * (1 + delta) + eta - s * F), scale_rhs(F, E, s, r, u, N)),
    (V_E2, V_S, V_R2, V_U, V_N, V_F, V_H, V_DELTA, V_ETA),
    hyps=(Le(A(H - F), E), Le(A(delta), r), Le(A(eta), u * N)))

STORAGE = Statement(
    Le(A(R - F), storage_rhs(F, E, uS, NS)),
    (V_E2, V_US, V_NS, V_F, V_T, V_R),
    hyps=(Le(A(T - F), E), Le(A(R - T), uS * (A(T) + NS))))


def _chord_proof(stmt: Statement, claim: Claim) -> Verdict:
    """``sin p - sin q = 2 cos((p+q)/2) sin((p-q)/2)`` and ``cos p - cos q = -2 sin((p+q)/2)
    sin((p-q)/2)`` (decided by the exponential procedure), then z3 on the polynomial abstraction
    with ``sin^2 t + cos^2 t = 1`` and the classical ``sin^2(t) <= t^2`` at ``t = (p-q)/2``."""
    import z3

    from peproof.engines import expoly
    from peproof.engines.decide import versions

    h, k_ = (p + q) / 2, (p - q) / 2
    ids = (sp.sin(p) - sp.sin(q) - 2 * sp.cos(h) * sp.sin(k_),
           sp.cos(p) - sp.cos(q) + 2 * sp.sin(h) * sp.sin(k_))
    ver = f"sympy {versions()['sympy']}, z3 {versions()['z3']}"
    if not all(expoly.expand_is_zero(t).zero for t in ids):
        return Verdict("unknown", "sympy-exp+z3", ver, "chain",
                       reason="sum-to-product identities not proved")
    sh, ch, sk, P_, Q_ = z3.Reals("sh ch sk p q")
    half = (P_ - Q_) / 2
    solver = z3.Solver()
    solver.add(sh * sh + ch * ch == 1, sk * sk <= 1, sk * sk <= half * half)
    diff_s, diff_c = 2 * ch * sk, -2 * sh * sk
    solver.add(z3.Not(z3.And(diff_s * diff_s <= (P_ - Q_) * (P_ - Q_),
                             diff_c * diff_c <= (P_ - Q_) * (P_ - Q_),
                             diff_s * diff_s <= 4, diff_c * diff_c <= 4)))
    ok = solver.check() == z3.unsat
    return Verdict(
        "proved" if ok else "unknown", "sympy-exp+z3", ver, "sum-to-product, z3",
        axioms=("|sin t| <= |t| and |sin t| <= 1 for real t, used at t = (p-q)/2 (classical; "
                "not machine-checked here)",
                "z3 nonlinear real arithmetic over the polynomial abstraction"),
        trace=["sin p - sin q = 2 cos((p+q)/2) sin((p-q)/2), cos p - cos q = -2 sin((p+q)/2) "
               "sin((p-q)/2): exponential procedure",
               "z3: the four squared differences bounded, negation unsatisfiable" if ok
               else "z3 did not close it"],
        reason="" if ok else "z3 step failed")


def _f(name, stmt, concl, note, at=None):
    """A falsifier: ``stmt`` with a wrong conclusion, optionally at fixed values ``at`` of some
    variables (a witness there refutes the general wrong statement too; fixing them keeps the
    witness within reach of the deterministic grid search)."""
    if at:
        by_name = {v.symbol.name: v.symbol for v in stmt.vars}
        fix = {by_name[k_]: sp.Rational(v) for k_, v in at.items()}
        sub = stmt.with_concl(concl)
        stmt = Statement(tuple(rel.map(lambda t: t.xreplace(fix)) for rel in sub.concl),
                         tuple(v for v in stmt.vars if v.symbol not in fix),
                         tuple(h.map(lambda t: t.xreplace(fix)) for h in stmt.hyps))
        return Falsifier(name, stmt, note + f" (at {', '.join(f'{k_}={v}' for k_, v in at.items())})")
    return Falsifier(name, stmt.with_concl(concl), note)


CLAIMS = [
    Claim(
        "error_model.relative_errors_compose",
        "Two relative errors bounded by a and b compose to at most (1+a)(1+b) - 1",
        src(APPENDIX, SECTION, QUOTE),
        COMPOSE,
        "inequality",
        falsifiers=(
            _f("sum_of_bounds", COMPOSE, Le(A((1 + x) * (1 + y) - 1), a + b),
               "the product term dropped"),
            _f("first_error_only", COMPOSE, Le(A((1 + x) * (1 + y) - 1), a),
               "only the first error"),
        ),
    ),
    Claim(
        "error_model.angle_error_bound",
        "A relative angle error |rho| <= K and an underflow |eta| <= m, reduced with relative "
        "error e, move the angle by at most |theta| K + m (1 + e)",
        src(APPENDIX, SECTION, QUOTE),
        ANGLE,
        "inequality",
        uses=("error_model.relative_errors_compose",),
        falsifiers=(
            _f("no_underflow_term", ANGLE,
               Le(A(theta * (1 + rho) + eta * (1 + delta) - theta), A(theta) * K),
               "the absolute (underflow) term dropped"),
            _f("half_the_relative_term", ANGLE,
               Le(A(theta * (1 + rho) + eta * (1 + delta) - theta), A(theta) * K / 2 + m * (1 + e)),
               "the relative term halved", at={"eta": 0, "delta": 0, "m": "1/100", "e": "1/100"}),
        ),
    ),
    Claim(
        "error_model.sin_cos_move_at_most_angle_error",
        "sin and cos move by at most the change of their argument, and by at most 2",
        src(APPENDIX, SECTION, QUOTE),
        CHORD,
        "inequality",
        uses=("distance.half_angle_form",),
        falsifiers=(
            _f("tenfold_tighter", CHORD, Le((sp.sin(p) - sp.sin(q)) ** 2, (p - q) ** 2 / 10),
               "a tenth of the squared change"),
            _f("bounded_by_one", CHORD, Le((sp.cos(p) - sp.cos(q)) ** 2, 1),
               "at most 1 instead of 2"),
        ),
        proof=only_for(CHORD)(_chord_proof),
    ),
    Claim(
        "error_model.library_step_bound",
        "A library sin/cos within 2 c_s u (|G| + N) of its value G at the perturbed angle, "
        "|G - F| <= D, lands within D + 2 c_s u (|F| + D + N) of the exact F",
        src(APPENDIX, SECTION, QUOTE),
        LIBRARY,
        "inequality",
        uses=("error_model.sin_cos_move_at_most_angle_error",),
        falsifiers=(
            _f("library_error_on_F_only", LIBRARY,
               Le(A(H - F), D + 2 * cs * u * (A(F) + N)), "the growth of |G| by D forgotten",
               at={"u": "1/2", "c_s": 1, "N": 0, "F": 1, "D": 1}),
            _f("angle_error_dropped", LIBRARY,
               Le(A(H - F), 2 * cs * u * (A(F) + D + N)), "the angle's contribution D dropped",
               at={"u": "1/4", "c_s": 1, "N": 0, "D": 1, "F": 0}),
        ),
    ),
    Claim(
        "error_model.scale_step_bound",
        "Scaling by s with relative error r and an underflow u N: |T - s F| <= s E (1 + r) + "
        "s |F| r + u N",
        src(APPENDIX, SECTION, QUOTE),
        SCALE,
        "inequality",
        uses=("error_model.relative_errors_compose",),
        falsifiers=(
            _f("scale_rounding_ignored", SCALE,
               Le(A(s * H * (1 + delta) + eta - s * F), s * E + u * N),
               "the rounding of the scaled value ignored"),
            _f("unscaled_error", SCALE,
               Le(A(s * H * (1 + delta) + eta - s * F), E * (1 + r) + s * A(F) * r + u * N),
               "the carried error not multiplied by s",
               at={"delta": 0, "eta": 0, "r": 0, "u": 1, "N": 0}),
        ),
    ),
    Claim(
        "error_model.storage_step_bound",
        "Rounding to a storage format S: |R - F| <= E (1 + u_S) + u_S (|F| + N_S)",
        src(APPENDIX, SECTION, QUOTE),
        STORAGE,
        "inequality",
        falsifiers=(
            _f("storage_rounding_ignored", STORAGE, Le(A(R - F), E),
               "the storage rounding ignored"),
            _f("no_growth_of_the_carried_error", STORAGE,
               Le(A(R - F), E + uS * A(F)), "rounding relative to |F|, not to |T|",
               at={"N_S": 0, "F": 0}),
        ),
    ),
]


# ----------------------------------------------------------------------------- composition
def entry_bound():
    """The composed bound of an entry as a SymPy expression, from the step lemmas' right-hand
    sides (each nondecreasing in the error it carries, so substitution composes them).

    Symbols: ``D`` the bound of ``|f(theta~) - f(theta)|`` (``min(Delta, 2)``), ``V`` the exact
    entry ``s F``, ``s`` the scale, ``r`` the scale's relative error, ``u``, ``N``, ``c_s`` of
    the pipeline dtype, ``u_S``, ``N_S`` of the storage dtype.  Returns ``(expr, symbols)``.
    """
    Vs = sp.Symbol("V", real=True)
    lib = library_rhs(Vs / s, D, u, cs, N)
    scaled = scale_rhs(Vs / s, lib, s, r, u, N)
    stored = storage_rhs(Vs, scaled, uS, NS)
    return sp.expand(stored), {"D": D, "V": Vs, "s": s, "r": r, "u": u, "N": N, "c_s": cs,
                               "u_S": uS, "N_S": NS}
