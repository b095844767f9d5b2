"""Programs: a safe PyTorch subset, parsed with `ast`, checked against an allowlist and
interpreted over the engine; never eval/exec/compile of user text. One job per module:

    parse.py      text -> Program (tree, statements numbered in reading order), via validate
    validate.py   what may be written (statements, expressions, names, literal sizes)
    policy.py     what a running program may reach (namespaces, classes, attributes)
    interpret.py  runs a Program statement by statement: Interpreter, run()
    statements.py, expressions.py   how a run executes statements and evaluates expressions
    generators.py the program's generator functions, resumed statement by statement
    matching.py   match statements: patterns matched over the run's values
    builtin_functions.py, operators.py   the builtins and operators a program may use
    records.py    ProgramError, Step, WarningRecord, RunResult

The language is described in docs/program-language.md.
"""

from .builtin_functions import BUILTIN_NAMES
from .interpret import Interpreter, run
from .parse import Program, parse
from .records import ERROR_KINDS, ProgramError, RunResult, Step, WarningRecord

__all__ = ["BUILTIN_NAMES", "ERROR_KINDS", "Interpreter", "Program", "ProgramError", "RunResult",
           "Step", "WarningRecord", "parse", "run"]
