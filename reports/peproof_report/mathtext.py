"""Text that carries mathematics, as LaTeX: the seeds' quotes and the claims' titles.

* **Quotes** are kept in the registry exactly as the seed texts spell them (the meta-tests find
  them there).  Those texts were scraped from web pages and carry their mathematics in three
  ways, all rendered here from the LaTeX they contain:

  - ``$...$`` and ``$$...$$`` (markdown pages), with ``*emphasis*`` and ``**bold**``;
  - KaTeX pages, where each formula appears twice, first as the characters the browser drew and
    then as its LaTeX source (``d/2d/2``, ``qm⊤knq_m^\\top k_n``).  A pair is recognised when
    the drawn characters equal the source *as drawn* (:func:`drawn`), and printed once, from the
    source;
  - a bare piece of LaTeX (a quote cut out of a display formula).

  A piece of LaTeX is typeset only if its braces balance and every command in it is one that
  LaTeX with amsmath/amssymb knows (:data:`MATH_COMMANDS`); otherwise it is printed as text.

* **Titles** are written in ASCII mathematics (``omega_min ≈ 1/10000``, ``||PE(p)||^2 = d/2``,
  ``W_Q W_K^T``); :func:`title_tex` finds the runs of mathematics and typesets them
  (``\\omega_{\\min}``, ``\\|PE(p)\\|^{2}``, ``W_{Q} W_{K}^{T}``), leaving the prose as text.

Both return LaTeX for text mode; text pieces go through :func:`.latex.tex`.
"""

from __future__ import annotations

import re

from .latex import tex, tex_breakable

# ---------------------------------------------------------------------------- LaTeX sources
#: commands a quote's LaTeX may use (pdfLaTeX with amsmath and amssymb)
MATH_COMMANDS = frozenset("""
alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi
rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega
sin cos tan cot exp log ln min max sup inf det dim arg lim
frac tfrac dfrac sqrt sum prod int oint left right big Big bigg Bigg bigl bigr Bigl Bigr
cdot cdots ldots dots vdots ddots times div pm mp ast star circ bullet
le leq ge geq ne neq approx sim simeq equiv cong propto to mapsto rightarrow leftarrow
Rightarrow Leftarrow iff implies in notin subset subseteq cup cap setminus forall exists
infty partial nabla top perp mid parallel langle rangle lfloor rfloor lceil rceil
mathbb mathrm mathbf mathcal mathit text textrm operatorname boxed overline underline hat bar
tilde vec dot ddot widehat widetilde quad qquad begin end displaystyle limits
""".split())
_ENVIRONMENTS = frozenset({"pmatrix", "bmatrix", "matrix", "cases", "aligned", "array"})
_CMD = re.compile(r"\\([A-Za-z]+)|\\(.)")

#: what KaTeX draws for a command (everything else: the command's argument, or nothing)
_DRAWN = {
    "pi": "π", "omega": "ω", "theta": "θ", "alpha": "α", "beta": "β", "gamma": "γ",
    "delta": "δ", "phi": "φ", "lambda": "λ", "sigma": "σ", "mu": "μ", "Delta": "Δ",
    "sim": "∼", "top": "⊤", "cdot": "⋅", "in": "∈", "ldots": "…", "dots": "…", "cdots": "⋯",
    "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈",
    "to": "→", "mapsto": "↦", "infty": "∞", "times": "×", "sum": "∑", "prod": "∏",
    "int": "∫", "sqrt": "√", "pm": "±", "langle": "⟨", "rangle": "⟩", "forall": "∀",
    "min": "min", "max": "max", "sin": "sin", "cos": "cos", "exp": "exp", "log": "log",
    "{": "{", "}": "}", "|": "∥", "mid": "∣",
}


def drawn(src: str) -> str:
    """The characters a browser draws for the LaTeX ``src`` (KaTeX), without white space:
    commands become their symbols, grouping, scripts and spacing disappear, ``-`` is a minus."""
    return "".join(_drawn_token(m) for m in _TOKEN.finditer(src))


def _plain(text: str) -> str:
    """Drawn text compared with :func:`drawn`: no white space, ``-`` as a minus."""
    return re.sub(r"\s+", "", text).replace("-", "−").replace("\u2009", "")


def math_ok(src: str) -> bool:
    """``src`` can be typeset: braces balance and every command and environment is known."""
    depth = 0
    for m in re.finditer(r"\\.|[{}]", src):
        t = m.group()
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
            if depth < 0:
                return False
    if depth or re.search(r"(?<!\\)[$%#]", src) or not src.strip():
        return False
    for m in _CMD.finditer(src):
        if m.group(1) and m.group(1) not in MATH_COMMANDS:
            return False
    for env in re.findall(r"\\(?:begin|end)\{([^}]*)\}", src):
        if env not in _ENVIRONMENTS:
            return False
    return True


def looks_like_latex(s: str) -> bool:
    """A bare piece of LaTeX: commands or braced scripts, and no run of prose (a word of five
    or more letters outside ``\\text{...}`` and commands)."""
    if not (re.search(r"\\[A-Za-z]+", s) or re.search(r"[_^]\{", s)):
        return False
    rest = re.sub(r"\\(?:text|begin|end)\{[^}]*\}|\\[A-Za-z]+", " ", s)
    return not re.search(r"[A-Za-z]{5,}", rest)


# ---------------------------------------------------------------------------- KaTeX pairs
def _drawn_token(m) -> str:
    name, sym, ch = m.group(1), m.group(2), m.group(3)
    if name is not None:
        return _DRAWN.get(name, "")
    if sym is not None:
        return _DRAWN.get(sym, "")
    if ch in "{}^_ \t\n$&":
        return ""
    return "−" if ch == "-" else ch


_TOKEN = re.compile(r"\\([A-Za-z]+)|\\(.)|(.)", re.S)
_BOUNDARY = " \t\n([{,;:-–—"


def _first_drawn(s: str, j: int) -> str:
    for m in _TOKEN.finditer(s, j):
        d = _drawn_token(m)
        if d:
            return d[0]
    return ""


def katex_pairs(s: str) -> list[tuple[int, int, int]]:
    """``(i, j, e)``: ``s[i:j]`` is drawn text immediately followed by its LaTeX source
    ``s[j:e]`` (the drawn text starts after white space or punctuation, the source ends before
    a boundary, both begin with the same drawn character); non-overlapping, left to right,
    the longest drawn text first."""
    out: list[tuple[int, int, int]] = []
    pos = 0
    for i in range(len(s)):
        if i < pos or s[i].isspace() or not (i == 0 or s[i - 1] in _BOUNDARY):
            continue
        a0 = "−" if s[i] == "-" else s[i]
        hit = None
        for j in range(min(len(s) - 1, i + 60), i, -1):
            if s[j].isspace() or _first_drawn(s, j) != a0:
                continue
            a = _plain(s[i:j])
            d = ""
            for m in _TOKEN.finditer(s, j):
                d += _drawn_token(m)
                if len(d) > len(a) or not a.startswith(d):
                    break
                e = m.end()
                if d == a and not (e < len(s) and (s[e].isalnum() or s[e] in "_^{\\")) \
                        and _credible(s[i:j], s[j:e]):
                    hit = (i, j, e)
                    break
            if hit:
                break
        if hit:
            out.append(hit)
            pos = hit[2]
    return out


def _credible(text: str, src: str) -> bool:
    """A pair, not a repeated word: the source is LaTeX or the text contains mathematics, or
    the whole is one letter twice (``low-ii pairs``)."""
    if not math_ok(src) or src.lstrip()[:1] in "^_})":
        return False
    if re.search(r"[\\^_{}=+/<>∈⊤∼⋅−…≤≥]|\d", text + src):
        return True
    return len(text.strip()) == 1 and text.strip() == src.strip()


# ---------------------------------------------------------------------------- quotes
def _text(s: str) -> str:
    """Prose with markdown emphasis (``**bold**``, ``*emphasis*``); a word in single quotes
    gets typographic quotes."""
    s = re.sub(r"(?<![\w'])'(?=\S)", "\u2018", s)
    out, last = [], 0
    for m in re.finditer(r"\*\*(.+?)\*\*|\*(?!\s)(.+?)(?<!\s)\*", s):
        out.append(tex(s[last:m.start()]))
        out.append(r"\textbf{" + tex(m.group(1)) + "}" if m.group(1) is not None
                   else r"\emph{" + tex(m.group(2)) + "}")
        last = m.end()
    out.append(tex(s[last:]))
    return "".join(out)


def _math(src: str) -> str:
    src = src.strip()
    if not math_ok(src):
        return tex(src)
    # a seed writing ``sin(a)`` for ``\sin(a)``: the operator upright, as its author meant
    src = re.sub(r"(?<![\\A-Za-z])(sin|cos|tan|exp|log)(?=\s*\()", r"\\\1", src)
    return r"\(" + src + r"\)"


def quote_tex(quote: str) -> str:
    """A seed quote as LaTeX (text mode), its mathematics typeset once (module docstring)."""
    q = re.sub("[\u200b\u200c\u200d\ufeff]", "", quote)
    if "$" in q:
        parts = re.split(r"\$\$|\$", q)
        # a quote cut inside a formula starts with LaTeX before its first delimiter
        math_first = bool(parts[0].strip()) and looks_like_latex(parts[0])
        out = []
        for n, p in enumerate(parts):
            in_math = (n % 2 == 0) if math_first else (n % 2 == 1)
            out.append(_math(p) if in_math and p.strip() else _text(p))
        return "".join(out)
    if looks_like_latex(q):
        return _math(q)
    pairs = katex_pairs(q)
    if pairs:
        out, last = [], 0
        for i, j, e in pairs:
            out.append(_text(q[last:i]))
            out.append(_math(q[j:e]))
            last = e
        out.append(_text(q[last:]))
        return "".join(out)
    return _text(q)


# ---------------------------------------------------------------------------- titles
_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "eta", "theta", "lambda", "mu", "pi",
          "sigma", "tau", "phi", "omega", "Omega", "Delta", "Sigma"}
_FUNCS = {"sin", "cos", "tan", "exp", "log", "ln", "det", "min", "max"}
_OPS = [("<=", r"\le "), (">=", r"\ge "), ("!=", r"\ne "), ("->", r"\to "), ("≈", r"\approx "),
        ("≤", r"\le "), ("≥", r"\ge "), ("≠", r"\ne "), ("→", r"\to "), ("·", r"\cdot "),
        ("×", r"\times "), ("∈", r"\in "), ("−", "-"), ("~", r"\sim ")]
#: identifiers that are mathematics, not prose
_ID = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*\.[a-z0-9]+(?:_[a-z0-9]+)+$")
_MATH_WORDS = _GREEK | _FUNCS | {"pos", "sqrt", "diag", "mod", "floor", "Attn", "PE", "dx"}
_OPERATOR = re.compile(r"[=<>^_|+*/≈≤≥≠→·×∈−~\[\]{}]|(?<![A-Za-z])-|-(?![A-Za-z])|\d")
_CODE = re.compile(r"=\'|\b[A-Z][a-z]+[.]\w|\b(?!Attn)[A-Z][a-z]{3,}\(|\(\)")


def _kind(w: str) -> str:
    """``math``, ``code``, ``num`` or ``prose`` for one white-space separated word of a title."""
    core = w.strip("()[].,;:'\"")
    if _CODE.search(w) or _ID.match(core) or re.search(r"\w\.\w+_", core):
        return "code"
    snake = re.match(r"([A-Za-z]{3,})_\w", core)  # rotate_half(x), inv_freq: code, not x_y
    if re.fullmatch(r"[(|\-]*sum_[a-z0-9]{1,2}", core):
        return "math"  # sum_j: a sum over j
    if snake and snake.group(1) not in _MATH_WORDS:
        return "code"
    if re.fullmatch(r"[\w-]+'s|'\w{2,}|\w{2,}'", core):
        return "prose"  # a possessive or a quoted word
    if re.fullmatch(r"-?\d+(?:[.,]\d+)*", core):
        return "num"
    if not core:
        return "math" if re.search(r"[\[\]]", w) else "prose"
    if core in _MATH_WORDS or re.fullmatch(r"[b-zB-HJ-Z]'?", core):
        return "math"
    if re.fullmatch(r"[A-Za-z]+(?:-[A-Za-z]+)*(?:'s)?", core):
        return "prose"
    return "math" if _OPERATOR.search(w) or re.search(r"\w\(|\)[\w(]|^\(", w) else "prose"


def _braced(s: str, i: int) -> tuple[str, int]:
    """The script after ``^``/``_`` at ``s[i:]``: a parenthesised group, a brace group or a run
    of letters and digits (``omega_min``, ``k^2``, ``10000^(-2i/d)``)."""
    if i < len(s) and s[i] in "({":
        close = ")" if s[i] == "(" else "}"
        depth, j = 0, i
        while j < len(s):
            if s[j] in "({":
                depth += 1
            elif s[j] in ")}":
                depth -= 1
                if depth == 0:
                    inner = s[i + 1:j]
                    return (inner if close == "}" or s[i] == "(" else inner), j + 1
            j += 1
        return s[i + 1:], len(s)
    m = re.compile(r"-?[A-Za-z0-9]+(?:\.\d+)?(?:,[A-Za-z0-9]+(?:\+\d+)?)*").match(s, i)
    if m:
        return m.group(), m.end()
    return "", i


_SNAKE = re.compile(r"([A-Za-z][A-Za-z0-9]*)(?:_[A-Za-z][A-Za-z0-9]*)+(?![A-Za-z0-9])")


def ascii_math(s: str) -> str:
    """An ASCII formula as LaTeX math (no delimiters)."""
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if s.startswith("||", i):
            out.append(r"\|")
            i += 2
            continue
        op = next(((a, b) for a, b in _OPS if s.startswith(a, i)), None)
        if op:
            out.append(op[1])
            i += len(op[0])
            continue
        if c in "^_" or s.startswith("**", i):  # ``**``: a power as Python writes it
            n = 2 if c == "*" else 1
            body, j = _braced(s, i + n)
            out.append(("^" if n == 2 else c) + "{" + ascii_math(body) + "}")
            i = j
            continue
        if c == "<" and re.match(r"<[A-Za-z(]", s[i:]) and ">" in s[i:]:
            j = s.index(">", i)
            out.append(r"\langle " + ascii_math(s[i + 1:j]) + r"\rangle ")
            i = j + 1
            continue
        if c == "*":
            out.append(r"\cdot ")
            i += 1
            continue
        if c in "{}":
            out.append("\\" + c)
            i += 1
            continue
        if c == "%":
            out.append(r"\%")
            i += 1
            continue
        m = _SNAKE.match(s, i)
        if m and m.group(1) == "sum" and m.group().count("_") == 1:
            out.append(r"\sum ")  # sum_j: the subscript follows
            i = m.start(1) + 3
            continue
        if m and (m.group().count("_") >= 2 or (len(m.group(1)) >= 3
                                                and m.group(1) not in _MATH_WORDS)):
            # a code name (high_freq_factor, inv_freq), not a variable with a subscript
            out.append(r"\mathrm{" + m.group().replace("_", r"\_") + "}")
            i = m.end()
            continue
        m = re.compile(r"[A-Za-z]+").match(s, i)
        if m:
            w = m.group()
            if w in ("min", "max") and out and out[-1].startswith("_"):
                out.append("\\" + w)
            elif w == "sqrt" and s.startswith("(", m.end()):
                body, j = _braced(s, m.end())
                out.append(r"\sqrt{" + ascii_math(body) + "}")
                i = j
                continue
            elif w in ("sum", "int"):
                out.append("\\" + w + " ")
            elif w in _FUNCS or w in _GREEK:
                out.append("\\" + w + " ")
                if w in _GREEK and re.match(r"\s*\d", s[m.end():]):
                    out.append(r"\cdot ")  # 2 pi 10000: a product, not the digits 210000
            elif w == "Attn":
                out.append(r"\operatorname{Attn}")
            elif len(w) > 3 and w not in ("RoPE",):
                out.append(r"\mathrm{" + w + "}")
            else:
                out.append(w)
            i = m.end()
            continue
        out.append(c)
        i += 1
    text = "".join(out)
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "{,}", text)  # 62,832: a thousands separator
    return re.sub(r"_\{\\(min|max)\s*\}", r"_{\\\1}", text)


def _balanced_run(src: str) -> tuple[str, str, str]:
    """(text before, mathematics, text after): unmatched outer brackets and trailing
    punctuation of a run stay text."""
    lead, trail = "", ""
    m = re.search(r"[.,;:]+$", src)
    if m:
        src, trail = src[: m.start()], m.group()
    def opens(s):
        return s.count("(") + s.count("[") + s.count("{")

    def closes(s):
        return s.count(")") + s.count("]") + s.count("}")

    while src[:1] in ("(", "[") and opens(src) > closes(src):
        lead, src = lead + src[0], src[1:]
    while src[-1:] in (")", "]") and closes(src) > opens(src):
        trail, src = src[-1] + trail, src[:-1]
    return lead, src, trail


def title_tex(title: str, link=None) -> str:
    """A claim's title (or any sentence with ASCII mathematics) as LaTeX: runs of mathematics
    typeset, prose escaped, code in typewriter type; claim ids are passed to ``link`` (which
    returns their LaTeX) when given."""
    toks = []
    for w in title.split():
        m = re.match(r"^([(\[]*)(.*?)([)\].,;:]*)$", w)
        if link and m and _ID.match(m.group(2)):
            toks.append([tex(m.group(1)) + link(m.group(2)) + tex(m.group(3)), "id"])
        else:
            toks.append([w, _kind(w)])
    # "a", "A" and "I" are mathematics next to an operator, a function or another variable
    # ("a != b", "= I", "sin a", "a, b"), else words
    for n, (w, k) in enumerate(toks):
        core = w.strip("()[],")
        if k == "prose" and core in ("a", "A", "I"):
            nxt = toks[n + 1][0] if n + 1 < len(toks) else ""
            prv = toks[n - 1][0] if n else ""
            if re.match(r"^[=<>!≤≥≠+\-*/]", nxt) or re.search(r"[=<>≤≥≠+\-*/,(]$", prv) \
                    or prv in _FUNCS or re.fullmatch(r"[b-zB-HJ-Z][,)]*", nxt) \
                    or (n and toks[n - 1][1] == "math" and n + 1 < len(toks)
                        and toks[n + 1][1] == "math") \
                    or (w.endswith(",") and re.fullmatch(r"\(?[b-zA-HJ-Z][,)]*", nxt)):
                toks[n][1] = "math"
    # an operator on its own between words is prose ("bias / frequency")
    for n, (w, k) in enumerate(toks):
        if k == "math" and re.fullmatch(r"[/+\-*]", w):
            nb = [toks[m][1] for m in (n - 1, n + 1) if 0 <= m < len(toks)]
            if "math" not in nb and "num" not in nb:
                toks[n][1] = "prose"
    # a number joins the mathematics next to an operator ("= 1", "2 pi"), else stays text
    for n, (w, k) in enumerate(toks):
        if k == "num":
            nxt = toks[n + 1] if n + 1 < len(toks) else ("", "prose")
            prv = toks[n - 1] if n else ("", "prose")
            joins = (prv[1] == "math" and not w.startswith("(")
                     and (re.search(r"[=<>≤≥≠≈~+\-*/(,]$", prv[0]) or prv[0] in _MATH_WORDS)) \
                or (nxt[1] == "math" and re.match(r"^[=<>≤≥≠+\-*/^_a-zA-Z]", nxt[0])
                    and not w.endswith((",", ";", ":", ")")))
            toks[n][1] = "math" if joins else "prose"
    out: list[str] = []
    run: list[str] = []

    def flush():
        if not run:
            return
        src = " ".join(run)
        run.clear()
        if re.fullmatch(r"[\d.,]+", src.strip("()[].,;:")) or not src.strip("()[].,;:"):
            out.append(tex(src))  # a number on its own stays in the text
            return
        lead, core, trail = _balanced_run(src)
        out.append(tex(lead) + r"\(" + ascii_math(core) + r"\)" + tex(trail))

    for w, k in toks:
        if k == "math":
            run.append(w)
            continue
        flush()
        out.append(w if k == "id" else r"\texttt{" + tex_breakable(w) + "}" if k == "code"
                   else _text(w))
    flush()
    return " ".join(out)


def _join(parts: list[str]) -> list[str]:
    return [p for p in parts if p]
