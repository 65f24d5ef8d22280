"""``python -m monoflow.distributed.run``: torchrun's module name
(``python -m torch.distributed.run``) and command line, so that launch lines
written for torchrun work, on top of monoflow.distributed.launch.

    python -m monoflow.distributed.run [--standalone] --nproc-per-node N \\
        [--nnodes M --node-rank K (--master-addr A --master-port P | --rdzv-endpoint A:P)] \\
        [--max-restarts R] [--rdzv-id ID] [-m | --no-python] script.py args...

    --nproc-per-node / --nproc_per_node   N, or 'cpu', 'gpu', 'auto' as torchrun
    --nnodes                              N (or N:N; elastic MIN:MAX ranges are refused)
    --node-rank, --master-addr, --master-port   as torchrun's static rendezvous
    --rdzv-endpoint HOST[:PORT]           -> --master-addr / --master-port: rank 0's node
    --rdzv-id                             the job id (MONOFLOW_JOB_ID, TORCHELASTIC_RUN_ID)
    --rdzv-backend, --rdzv-conf           accepted (the rendezvous is rank 0's TCP store)
    --standalone                          one node on this host, on a free port
    --max-restarts R                      restart all local ranks up to R times when one fails
                                          (TORCHELASTIC_RESTART_COUNT counts them; Note [Restarts]
                                          in launch.py)
    --monitor-interval, --start-method, --role, --redirects/-r, --tee/-t, --local-addr
                                          accepted and ignored (they tune torchrun's agent)

Every option may be written with dashes or underscores, as ``--name value``
or ``--name=value``. With --nnodes > 1 and no --node-rank, the node's index
comes from NODE_RANK or SLURM_NODEID (``srun python -m monoflow.distributed.run
--nnodes $SLURM_NNODES ...``): the rendezvous is static, so the nodes must be
numbered by someone.
"""
import sys

from monoflow.distributed import launch

_ENDPOINT = "--rdzv-endpoint"
_IGNORED_VALUED = ("--rdzv-backend", "--rdzv-conf", "--monitor-interval", "--start-method", "--role",
                   "--redirects", "--tee", "--local-addr", "--log-line-prefix-template", "--local-ranks-filter")
_SHORT = {"-r": "--redirects", "-t": "--tee"}


def _canon(name):
    name = _SHORT.get(name, name)
    return "--" + name[2:].replace("_", "-") if name.startswith("--") else name


def translate(argv):
    """torchrun's argv -> the launcher's argv (the script and its own arguments are kept as they are).
    --standalone is dropped here: main() hands it on (see standalone())."""
    return _translate(argv)[0]


def standalone(argv):
    """Whether torchrun's --standalone is among the options (before the script)."""
    return _translate(argv)[1]


def _translate(argv):
    out, i, alone = [], 0, False
    while i < len(argv):
        arg = argv[i]
        if not arg.startswith("-") or arg in ("-m", "--module"):
            if arg in ("-m", "--module"):
                out.append(arg)
                i += 1
                continue
            return out + argv[i:], alone
        name, eq, value = arg.partition("=")
        canon = _canon(name)
        if canon == "--standalone":
            alone = True
            i += 1
            continue
        if canon == _ENDPOINT or canon in _IGNORED_VALUED:
            if not eq:
                if i + 1 >= len(argv):
                    raise SystemExit(f"monoflow.distributed.run: {name} needs a value")
                value = argv[i + 1]
                i += 1
            i += 1
            if canon == _ENDPOINT and value:
                host, _, port = value.rpartition(":") if ":" in value else (value, "", "")
                out += ["--master-addr", host or value]
                if port:
                    out += ["--master-port", port]
            continue
        out.append(arg)
        if not eq and i + 1 < len(argv) and _takes_value(canon):
            out.append(argv[i + 1])   # a value that looks like a script name must not end the options
            i += 1
        i += 1
    return out, alone


_LAUNCH_VALUED = ("--nproc-per-node", "--nnodes", "--node-rank", "--master-addr", "--master-port", "--job-id",
                  "--rdzv-id", "--log-dir", "--max-restarts")


def _takes_value(canon):
    return canon in _LAUNCH_VALUED


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    out, alone = _translate(argv)
    return launch.main((["--standalone"] if alone else []) + out)


if __name__ == "__main__":
    sys.exit(main())
