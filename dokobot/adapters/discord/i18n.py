"""German localisation of the slash commands and the adapter's own few strings.

The host renders every game text in the table's language; the adapter only needs words for
its own buttons and notices, and the names and descriptions Discord shows in the command
picker. Those are English :class:`~discord.app_commands.locale_str` messages, translated here
for German clients.

>>> import asyncio
>>> from discord import Locale
>>> from discord.app_commands import locale_str
>>> t = DokoTranslator()
>>> asyncio.run(t.translate(locale_str("healthy"), Locale.german, None))
'gesund'
>>> asyncio.run(t.translate(locale_str("healthy"), Locale.french, None)) is None
True
>>> text("my_hand", "de")
'Meine Karten'
"""

from __future__ import annotations

from typing import Final

from discord import Locale, app_commands

GERMAN: Final[dict[str, str]] = {
    # command names (lower case, no spaces, unique)
    "join": "mitspielen",
    "leave": "aussteigen",
    "start": "starten",
    "healthy": "gesund",
    "reservation": "vorbehalt",
    "solo": "solo",
    "wedding": "hochzeit",
    "play": "spielen",
    "re": "re",
    "kontra": "kontra",
    "no90": "keine90",
    "no60": "keine60",
    "no30": "keine30",
    "black": "schwarz",
    "hand": "hand",
    "table": "tisch",
    "last": "letzter",
    "score": "punkte",
    "option": "option",
    "options": "optionen",
    "lang": "sprache",
    "abort": "abbrechen",
    "export": "export",
    "replace": "ersetzen",
    "help": "hilfe",
    "stats": "statistik",
    "top": "rangliste",
    "web": "webseite",
    # parameter names
    "chart": "grafik",
    "board": "liste",
    "switch": "schalter",
    "bot": "bot",
    "type": "art",
    "card": "karte",
    "name": "name",
    "value": "wert",
    "language": "sprache",
    "command": "befehl",
    "level": "stufe",
    "player": "spieler",
    # command descriptions
    "Take a seat at the table in this channel": "Am Tisch in diesem Kanal Platz nehmen",
    "Seat a computer player instead of yourself": "Einen Computerspieler statt dir setzen",
    "Leave the table": "Den Tisch verlassen",
    "Start the next game": "Das nächste Spiel beginnen",
    "Say you have no reservation": "Gesund melden: kein Vorbehalt",
    "Announce a reservation": "Einen Vorbehalt anmelden",
    "Declare a solo": "Ein Solo ansagen",
    "Which solo": "Welches Solo",
    "Declare a wedding (both ♣Q)": "Hochzeit ansagen (beide Kreuz-Damen)",
    "Play a card": "Eine Karte spielen",
    "The card, e.g. ♣Q, CQ, KrD or its position in your hand": (
        "Die Karte, z. B. ♣Q, CQ, KrD oder ihre Nummer auf der Hand"
    ),
    "Announce Re": "Re ansagen",
    "Announce Kontra": "Kontra ansagen",
    "Announce no 90": "Keine 90 ansagen",
    "Announce no 60": "Keine 60 ansagen",
    "Announce no 30": "Keine 30 ansagen",
    "Announce black": "Schwarz ansagen",
    "Show your hand (only you see it)": "Deine Karten zeigen (nur für dich sichtbar)",
    "Show the table": "Den Tisch zeigen",
    "Show the last trick": "Den letzten Stich zeigen",
    "Show the score list": "Die Punkteliste zeigen",
    "The running totals of the series as a picture": "Die Spielstände der Serie als Bild",
    "Show statistics on this server (only you see them)": (
        "Statistik auf diesem Server zeigen (nur für dich sichtbar)"
    ),
    "Whose statistics (default: yours)": "Wessen Statistik (sonst deine)",
    "The rating over time as a picture": "Die Wertung im Verlauf als Bild",
    "Show the leaderboard of this server": "Die Rangliste dieses Servers zeigen",
    "Ranked by what": "Wonach geordnet",
    "Points": "Punkte",
    "Rating": "Wertung",
    "Games": "Spiele",
    "Solo": "Soli",
    "Link to this server's web page": "Link zur Webseite dieses Servers",
    "Turn the page on or off (admins)": "Die Seite an- oder abschalten (Admins)",
    "On": "An",
    "Off": "Aus",
    "Show or change a table option": "Eine Tischoption zeigen oder ändern",
    "Option name": "Name der Option",
    "New value (leave empty to show the current one)": "Neuer Wert (leer: aktuellen Wert zeigen)",
    "List the table options": "Die Tischoptionen auflisten",
    "Set the table language": "Die Sprache des Tisches einstellen",
    "Language": "Sprache",
    "Abort the current game": "Das laufende Spiel abbrechen",
    "Export the game record": "Das Spielprotokoll exportieren",
    "Take a computer player's seat (between games)": (
        "Den Platz eines Computerspielers übernehmen (zwischen den Spielen)"
    ),
    "The computer player whose seat you take": "Der Computerspieler, dessen Platz du übernimmst",
    "How strong the computer player is": "Wie stark der Computerspieler ist",
    "Random": "Zufällig",
    "Easy": "Leicht",
    "Normal": "Normal",
    "Strong": "Stark",
    "Explain the commands": "Die Befehle erklären",
    "A command to explain": "Ein Befehl, der erklärt werden soll",
    # choice names
    "Diamonds solo": "Karo-Solo",
    "Clubs solo": "Kreuz-Solo",
    "Spades solo": "Pik-Solo",
    "Hearts solo": "Herz-Solo",
    "Queens solo": "Damen-Solo",
    "Jacks solo": "Buben-Solo",
    "Fleshless (aces solo)": "Fleischloser",
}


class DokoTranslator(app_commands.Translator):
    """Translates command names, descriptions and choices into German."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is not Locale.german:
            return None
        return GERMAN.get(string.message)


_TEXTS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "my_hand": "My hand",
        "error": "Something went wrong. Please try again.",
        "done": "Done.",
        "dm_blocked": (
            "{mention}, I cannot send you direct messages. Press the “My hand” button under "
            "the table messages: it shows your cards and, on your turn, the cards you may play."
        ),
    },
    "de": {
        "my_hand": "Meine Karten",
        "error": "Etwas ist schiefgelaufen. Bitte versuche es noch einmal.",
        "done": "Erledigt.",
        "dm_blocked": (
            "{mention}, ich kann dir keine Direktnachrichten schicken. Drücke den Knopf "
            "„Meine Karten“ unter den Tischnachrichten: Er zeigt deine Karten und, wenn du dran "
            "bist, die Karten, die du spielen darfst."
        ),
    },
}


def text(key: str, lang: str, **fields: str) -> str:
    """One of the adapter's own strings in ``lang`` (``"de"`` or ``"en"``)."""
    table = _TEXTS.get(lang, _TEXTS["en"])
    return table.get(key, _TEXTS["en"][key]).format(**fields)


def lang_of(locale: Locale | None) -> str:
    """``"de"`` for German Discord clients, else ``"en"``.

    >>> lang_of(Locale.german), lang_of(Locale.american_english), lang_of(None)
    ('de', 'en', 'en')
    """
    return "de" if locale is Locale.german else "en"
