"""``python -m monoflow.distributed.run``: torchrun's module name
(``python -m torch.distributed.run``), so that launch lines written for torchrun
work: its single-node rendezvous flags are read into the launcher's own.

    --standalone                      one node on this host (the launcher's default)
    --rdzv-endpoint / --rdzv_endpoint HOST[:PORT] -> --master-addr / --master-port
    --rdzv-backend / --rdzv_backend   accepted (the launcher has one rendezvous: its TCP store)

Everything else is monoflow.distributed.launch's (--nproc-per-node, --nnodes, --node-rank,
--master-addr/port, --rdzv-id, -m)."""
import sys

from monoflow.distributed import launch

_VALUED = ("--rdzv-endpoint", "--rdzv_endpoint", "--rdzv-backend", "--rdzv_backend")


def translate(argv):
    """torchrun's argv -> the launcher's argv (the script and its own arguments are kept as they are)."""
    out, i = [], 0
    while i < len(argv):
        arg = argv[i]
        if not arg.startswith("-") or arg in ("-m", "--module"):
            if arg in ("-m", "--module"):
                out.append(arg)
                i += 1
                continue
            return out + argv[i:]
        name, eq, value = arg.partition("=")
        if name == "--standalone":
            i += 1
            continue
        if name in _VALUED:
            if not eq:
                if i + 1 >= len(argv):
                    raise SystemExit(f"monoflow.distributed.run: {name} needs a value")
                value = argv[i + 1]
                i += 1
            i += 1
            if name.replace("_", "-") == "--rdzv-endpoint" and value:
                host, _, port = value.rpartition(":") if ":" in value else (value, "", "")
                out += ["--master-addr", host or value]
                if port:
                    out += ["--master-port", port]
            continue
        out.append(arg)
        i += 1
    return out


def main(argv=None):
    return launch.main(translate(sys.argv[1:] if argv is None else list(argv)))


if __name__ == "__main__":
    sys.exit(main())
