"""An export (``/export``, a replay file) as one line with a link, where the chat is given a
folder that a web server serves: the file is written there under a random name."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from pathlib import Path

from dokobot.host.events import Private
from dokobot.host.i18n import render

log = logging.getLogger("dokobot.adapters.textchat")

EXPORTS_KEPT = 200
"""Export files kept in the folder; older ones are removed."""


@dataclass(frozen=True, slots=True)
class Exports:
    """Where exports go: ``folder`` on disk, served at ``url``."""

    folder: str
    url: str

    def link(self, event: Private) -> str | None:
        """Write the export of ``event`` into the folder; the line with its URL (None: it
        could not be written, the export is sent as lines instead)."""
        folder = Path(self.folder)
        name = f"{secrets.token_urlsafe(12)}.doko"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(event.text, encoding="utf-8")
            old = sorted(folder.glob("*.doko"), key=lambda p: p.stat().st_mtime)
            for stale in old[:-EXPORTS_KEPT]:
                stale.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("could not write an export: %s", type(exc).__name__)
            return None
        url = self.url.rstrip("/") + "/" + name
        return render(event.lang or "en", "export_link", {"url": url})
