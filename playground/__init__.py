"""gradplay's playground: programs (a safe PyTorch subset), share tokens, and (later) sessions."""

from .limits import Limits, default_limits
from .program import Interpreter, Program, ProgramError, RunResult, Step, parse, run
from .share import ShareError, decode, encode

__all__ = [
    "Interpreter", "Limits", "Program", "ProgramError", "RunResult", "ShareError", "Step",
    "decode", "default_limits", "encode", "parse", "run",
]
