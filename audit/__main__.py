"""``python -m audit`` and the ``audit`` command (pyproject.toml's script): the command line.

Loading it makes some hundred thousand objects (modules, classes, functions, pydantic's
schemas) that all live as long as the process. Left on, the cyclic collector scanned them
again and again while they were made, about 120 times: 0.03 s of a 0.3 s start-up. It is
off while they load, and they then go to its oldest generation in one step (frozen, then
unfrozen), where they would have ended anyway; the audit runs with the collector as before
(``audit.stream.inputs`` tunes it while a log streams).

Ctrl-C (or SIGTERM) while it loads ends the process at once, in the one line every interruption
prints: nothing has been done yet that needs undoing. ``audit.interrupt`` takes over once the
command line is loaded."""

import gc
import os
import signal


def _interrupted_while_loading(signum: int, _frame: object) -> None:
    os.write(2, b"audit: interrupted\n")
    os._exit(130)  # audit.interrupt.EXIT_STATUS, not imported yet


def main(args: list[str] | None = None) -> None:
    """The command line with ``args`` (default: the process's arguments)."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _interrupted_while_loading)
    collecting = gc.isenabled()
    gc.disable()
    try:
        from .engine.game import RegistryError

        try:
            from .cli import main as command
        except RegistryError as error:  # a game plugin that cannot be registered
            os.write(2, f"audit: {error}\n".encode())
            os._exit(2)
    finally:
        gc.freeze()
        gc.unfreeze()
        if collecting:
            gc.enable()
    command(args)


if __name__ == "__main__":
    main()
