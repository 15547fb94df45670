"""The web table: play online with friends, each browser seeing only its own seat.

Needs the ``web`` extra (``make serve`` in a checkout) for the server; :mod:`.protocol`,
:mod:`.store` and :mod:`.tables` need nothing outside the standard library.
"""

__all__: list[str] = []
