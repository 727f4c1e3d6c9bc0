"""Proof files: read and write them, check them, and build them for small boards.

Everything here uses the rules core (`tictactoe.core`) and the standard library only, so
that a proof checked here is checked independently of the search code that found it.

- `tictactoe.proof.format`: the file format (``docs/proof-format.md``): `ProofReader`,
  `ProofWriter`.
- `tictactoe.proof.check`: `check_proof`, the checker.
- `tictactoe.proof.threats`: the checker's threat-sequence search.
- `tictactoe.proof.small`: a reference prover for small boards.
- `tictactoe.proof.patashnik`: O. Patashnik's Qubic dictionary (Mathematics Magazine 53(4),
  1980), its strategy, and a verifier that walks it.
"""

from tictactoe.proof.check import CheckStats, check_proof
from tictactoe.proof.errors import ProofCheckError, ProofError, ProofFormatError
from tictactoe.proof.format import Header, ProofReader, ProofWriter, Record, read_header

__all__ = [
    "CheckStats",
    "Header",
    "ProofCheckError",
    "ProofError",
    "ProofFormatError",
    "ProofReader",
    "ProofWriter",
    "Record",
    "check_proof",
    "read_header",
]
