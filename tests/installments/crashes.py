"""A process dying, as the recovery tests inject it."""


class Crash(Exception):
    """Stands for the process dying between the processor's answer and the commit."""
