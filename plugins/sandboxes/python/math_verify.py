"""
A pure-Python stand-in for the `math_verify` package (parse, verify), for SPADE environments that
import it. Both Python sandboxes use this same file, so a verdict does not depend on the sandbox:
no sympy, which Pyodide cannot load offline (the cpython sandbox has sympy, and does not use it here).

parse(text) reads the last \\boxed{...} (or the whole text), normalises LaTeX (\\frac, \\sqrt,
\\cdot, \\pi, \\left/\\right, \\text{}, $, degrees, percent) and returns a list of candidates:
an exact or floating value, an expression in free variables, a tuple or set of those, and the
normalised text. verify(gold, answer) is True when some candidate of each side is equivalent:
numbers equal (to 1e-6, relative), expressions equal at several sample points, tuples equal
element by element, sets equal as sets, or else the normalised texts are identical.
"""
import ast
import math
import re
from fractions import Fraction

__all__ = ['parse', 'verify']

_TOLERANCE = 1e-6
_SAMPLES = (0.5772, 1.4142, 2.7183, -0.8415, 3.1416)
_FUNCTIONS = {'sqrt': math.sqrt, 'sin': math.sin, 'cos': math.cos, 'tan': math.tan,
              'log': math.log, 'ln': math.log, 'exp': math.exp, 'abs': abs}
_CONSTANTS = {'pi': math.pi, 'e': math.e}


class Value:
    """One parsed candidate: kind is 'number', 'expression', 'tuple', 'set' or 'text'."""

    def __init__(self, kind, payload, variables=()):
        self.kind = kind
        self.payload = payload
        self.variables = tuple(variables)

    def __repr__(self):
        return f'Value({self.kind}, {self.payload!r})'


def _last_boxed(text):
    start = max(text.rfind('\\boxed{'), text.rfind('\\fbox{'))
    if start < 0:
        return text
    i = text.index('{', start) + 1
    depth = 1
    for j in range(i, len(text)):
        depth += {'{': 1, '}': -1}.get(text[j], 0)
        if depth == 0:
            return text[i:j]
    return text[i:]


def _braced(text, i):
    """The {...} group starting at text[i] and the index after it."""
    if i >= len(text) or text[i] != '{':
        return (text[i], i + 1) if i < len(text) else ('', i)
    depth = 0
    for j in range(i, len(text)):
        depth += {'{': 1, '}': -1}.get(text[j], 0)
        if depth == 0:
            return text[i + 1:j], j + 1
    return text[i + 1:], len(text)


def _latex_to_python(text):
    for command in ('\\dfrac', '\\tfrac', '\\frac'):
        while command in text:
            i = text.index(command)
            numerator, j = _braced(text, i + len(command))
            denominator, k = _braced(text, j)
            text = f'{text[:i]}(({numerator})/({denominator})){text[k:]}'
    while '\\sqrt' in text:
        i = text.index('\\sqrt')
        inner, j = _braced(text, i + 5)
        text = f'{text[:i]}sqrt({inner}){text[j:]}'
    text = re.sub(r'\\text\{([^}]*)\}|\\mathrm\{([^}]*)\}', lambda m: m.group(1) or m.group(2) or '', text)
    for old, new in (('\\left', ''), ('\\right', ''), ('\\!', ''), ('\\,', ''), ('\\;', ''), ('\\ ', ''),
                     ('^\\circ', ''), ('^{\\circ}', ''), ('\\circ', ''), ('\\%', ''), ('%', ''), ('$', ''),
                     ('\\cdot', '*'), ('\\times', '*'), ('\\div', '/'), ('\\pi', 'pi'), ('\\infty', 'inf'),
                     ('\\{', '{'), ('\\}', '}'), ('\\ln', 'ln'), ('\\log', 'log'), ('\\sin', 'sin'),
                     ('\\cos', 'cos'), ('\\tan', 'tan'), ('\\exp', 'exp'), ('^', '**')):
        text = text.replace(old, new)
    text = text.replace('{', '(').replace('}', ')') if not re.fullmatch(r'\s*\{.*\}\s*', text) else text
    return text.strip().rstrip('.').strip()


def _implicit_multiplication(text):
    text = re.sub(r'(\d)\s*([a-zA-Z(])', r'\1*\2', text)
    text = re.sub(r'\)\s*([a-zA-Z0-9(])', r')*\1', text)
    return text


def _evaluate(node, variables):
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, variables)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return Fraction(node.value) if isinstance(node.value, int) else node.value
    if isinstance(node, ast.Name):
        if node.id in variables:
            return variables[node.id]
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise ValueError(f'unknown name {node.id}')
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        value = _evaluate(node.operand, variables)
        return value if isinstance(node.op, ast.UAdd) else -value
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left, variables), _evaluate(node.right, variables)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            return left / right
        if isinstance(node.op, ast.Pow):
            if abs(float(right)) > 1000:
                raise ValueError('exponent too large')
            result = left ** right
            return result if isinstance(result, (Fraction, float, int)) else float('nan')
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS and len(node.args) == 1:
        return _FUNCTIONS[node.func.id](float(_evaluate(node.args[0], variables)))
    raise ValueError('unsupported expression')


def _free_names(tree):
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return sorted(names - called - set(_CONSTANTS))


def _scalar(text):
    text = text.strip()
    if re.fullmatch(r'-?\d{1,3}(,\d{3})+(\.\d+)?', text):
        text = text.replace(',', '')
    if '=' in text:
        left, _, right = text.rpartition('=')
        if re.fullmatch(r'\s*[a-zA-Z]\w*\s*', left):
            text = right
    if len(text) > 500:
        raise ValueError('too long')
    tree = ast.parse(_implicit_multiplication(text), mode='eval')
    names = _free_names(tree)
    if not names:
        return Value('number', _evaluate(tree, {}))
    if len(names) > 4 or any(len(n) > 2 for n in names):
        raise ValueError('not a simple expression')
    return Value('expression', tree, names)


def _split_top_level(text):
    parts, depth, current = [], 0, ''
    for ch in text:
        depth += 1 if ch in '([{' else -1 if ch in ')]}' else 0
        if ch == ',' and depth == 0:
            parts.append(current)
            current = ''
        else:
            current += ch
    return parts + [current]


def _normalised_text(text):
    return re.sub(r'\s+', '', text).lower().strip('.')


def parse(text, *_args, **_kwargs):
    """Candidates for what `text` (a reply or a gold answer) means, most specific first."""
    if isinstance(text, (int, float, Fraction)) and not isinstance(text, bool):
        return [Value('number', Fraction(text) if isinstance(text, int) else text), str(text)]
    raw = _last_boxed(str(text))
    body = _latex_to_python(raw)
    candidates = []
    try:
        if re.fullmatch(r'\{.*\}', body) or (re.fullmatch(r'[(\[].*[)\]]', body) and ',' in body):
            items = [_scalar(_latex_to_python(p)) for p in _split_top_level(body[1:-1])]
            candidates.append(Value('set' if body[0] == '{' else 'tuple', items))
        elif ',' in body and not re.fullmatch(r'-?\d{1,3}(,\d{3})+(\.\d+)?', body.strip()):
            candidates.append(Value('tuple', [_scalar(p) for p in _split_top_level(body)]))
        else:
            candidates.append(_scalar(body))
    except (ValueError, SyntaxError, TypeError, ZeroDivisionError, OverflowError, RecursionError, MemoryError):
        pass
    candidates.append(_normalised_text(raw))
    return candidates


def _numbers_equal(a, b):
    try:
        if isinstance(a, Fraction) and isinstance(b, Fraction):
            return a == b
        a, b = float(a), float(b)
    except (TypeError, ValueError, OverflowError):
        return False
    if math.isnan(a) or math.isnan(b):
        return False
    return a == b or abs(a - b) <= _TOLERANCE * max(1.0, abs(a), abs(b))


def _at(value, point):
    if value.kind == 'number':
        return value.payload
    return _evaluate(value.payload, dict(zip(value.variables, point)))


def _values_equal(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if a.kind in ('tuple', 'set') or b.kind in ('tuple', 'set'):
        if a.kind != b.kind or len(a.payload) != len(b.payload):
            return False
        if a.kind == 'tuple':
            return all(_values_equal(x, y) for x, y in zip(a.payload, b.payload))
        unmatched = list(b.payload)
        for x in a.payload:
            match = next((y for y in unmatched if _values_equal(x, y)), None)
            if match is None:
                return False
            unmatched.remove(match)
        return True
    if a.kind == 'number' and b.kind == 'number':
        return _numbers_equal(a.payload, b.payload)
    if a.kind == 'expression' and b.kind == 'expression' and set(a.variables) != set(b.variables):
        return False
    names = a.variables if a.kind == 'expression' else b.variables
    for shift in _SAMPLES:
        point = {n: shift + i * 0.7 for i, n in enumerate(names)}
        try:
            left = _at(a, [point[n] for n in a.variables]) if a.kind == 'expression' else a.payload
            right = _at(b, [point[n] for n in b.variables]) if b.kind == 'expression' else b.payload
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            return False
        if not _numbers_equal(left, right):
            return False
    return True


def verify(gold, target, *_args, **_kwargs):
    """True when some candidate of `gold` is equivalent to some candidate of `target`."""
    golds = gold if isinstance(gold, list) else parse(gold)
    targets = target if isinstance(target, list) else parse(target)
    return any(_values_equal(g, t) for g in golds for t in targets)
