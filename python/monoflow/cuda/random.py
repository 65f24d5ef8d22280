"""torch.cuda.random: the CUDA generators' seeding and state functions (also ``monoflow.cuda``'s)."""
from monoflow.cuda import (get_rng_state, get_rng_state_all, initial_seed, manual_seed, manual_seed_all, seed,
                           seed_all, set_rng_state, set_rng_state_all)

__all__ = ["get_rng_state", "get_rng_state_all", "initial_seed", "manual_seed", "manual_seed_all", "seed",
           "seed_all", "set_rng_state", "set_rng_state_all"]
