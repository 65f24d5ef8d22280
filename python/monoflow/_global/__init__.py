"""Global tensors: placement, SBP, boxing and SBP deduction (docs/global_tensors.md)."""
