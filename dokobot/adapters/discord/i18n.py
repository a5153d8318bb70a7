"""German localisation of the slash commands and the adapter's own few strings.

Command and argument names carry their German form from their declaration
(:mod:`dokobot.host.commands`); this table translates the descriptions and choice labels.

The host renders every game text in the table's language; the adapter only needs words for
its own buttons and notices, and the names and descriptions Discord shows in the command
picker. Those are English :class:`~discord.app_commands.locale_str` messages, translated here
for German clients.

>>> import asyncio
>>> from discord import Locale
>>> from discord.app_commands import locale_str
>>> t = DokoTranslator()
>>> asyncio.run(t.translate(locale_str("healthy", de="gesund"), Locale.german, None))
'gesund'
>>> asyncio.run(t.translate(locale_str("Play a card"), Locale.german, None))
'Eine Karte spielen'
>>> asyncio.run(t.translate(locale_str("healthy", de="gesund"), Locale.french, None)) is None
True
>>> text("my_hand", "de")
'Meine Karten'
>>> sorted(_TEXTS["de"]) == sorted(_TEXTS["en"])
True
"""

from __future__ import annotations

from typing import Final

from discord import Locale, app_commands

GERMAN: Final[dict[str, str]] = {
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
    "Announce a poverty (house rule)": "Armut ansagen (Hausregel)",
    "Throw in five nines or kings": "Schmeißen mit fünf Neunen oder Königen",
    "Take the poverty offered to you": "Die angebotene Armut nehmen",
    "Decline the poverty offered to you": "Die angebotene Armut ablehnen",
    "Give cards in a poverty's exchange": "Karten beim Armut-Tausch geben",
    "One to three cards, e.g. DA D10 HK": "Eine bis drei Karten, z. B. KaA Ka10 HK",
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
    "A game number for its details": "Eine Spielnummer für die Einzelheiten",
    "As CSV (a file)": "Als CSV (eine Datei)",
    "Show the chip balances of this server": "Die Chip-Stände dieses Servers zeigen",
    "Where your prompts come: by DM or here": "Wo deine Aufforderungen ankommen: per DN oder hier",
    "Where": "Wo",
    "By direct message": "Per Direktnachricht",
    "Here, in “My cards”": "Hier, in „Meine Karten“",
    "Export the score list as CSV instead": "Stattdessen die Punkteliste als CSV exportieren",
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
    "Set the language of your own messages": "Die Sprache deiner eigenen Nachrichten einstellen",
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
        german = string.extras.get("de")  # a name, declared with its German form
        return str(german) if german is not None else GERMAN.get(string.message)


_TEXTS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "my_hand": "My cards",
        "error": "Something went wrong. Please try again.",
        "done": "Done.",
        "dm_blocked": (
            "{mention}, I cannot send you direct messages. Press the “My cards” button under "
            "the board: it shows your cards and, on your turn, the cards you may play."
        ),
        "board_title": "Game {n}",
        "board_trick": "Trick {n} of 12",
        "board_over": "Game over",
        "board_table": "On the table",
        "board_empty": "no card yet",
        "board_turn": "Turn",
        "board_waiting": "{player} to play",
        "board_contract": "Contract",
        "board_calls": "Calls",
        "board_parties": "Known parties",
        "board_tricks": "Tricks taken",
        "board_last": "Last trick",
        "board_news": "Latest",
        "board_away": "Computer stands in for",
        "board_marks": "Marks",
        "phase_reservations": "Reservations",
        "phase_declarations": "Declarations",
        "phase_exchange": "Poverty: exchange of cards",
        "contract_normal": "Normal game",
        "contract_wedding": "Wedding",
        "contract_poverty": "Poverty",
        "none": "none",
        "used": "→ {label}",
        "panel_expired": (
            "This view of your cards has expired (Discord allows 15 minutes). Press “My cards” "
            "again for a fresh one."
        ),
        "panel_until": "Kept up to date until {time}; then press “My cards” again.",
        "prompts_dm": "Your prompts come by direct message (and into “My cards” while it is open).",
        "prompts_here": (
            "Your prompts come into “My cards” in the channel; by direct message only when it "
            "is closed or expired."
        ),
        "missing_permissions": (
            "I cannot host a table in this channel: I am missing the permission(s) {names}. "
            "Ask a server admin to grant them to me here."
        ),
        "perm_view_channel": "View Channel",
        "perm_send_messages": "Send Messages",
        "perm_embed_links": "Embed Links",
        "perm_attach_files": "Attach Files",
        "perm_read_message_history": "Read Message History",
    },
    "de": {
        "my_hand": "Meine Karten",
        "error": "Etwas ist schiefgelaufen. Bitte versuche es noch einmal.",
        "done": "Erledigt.",
        "dm_blocked": (
            "{mention}, ich kann dir keine Direktnachrichten schicken. Drücke den Knopf "
            "„Meine Karten“ unter dem Spielbrett: Er zeigt deine Karten und, wenn du dran "
            "bist, die Karten, die du spielen darfst."
        ),
        "board_title": "Spiel {n}",
        "board_trick": "Stich {n} von 12",
        "board_over": "Spiel beendet",
        "board_table": "Auf dem Tisch",
        "board_empty": "noch keine Karte",
        "board_turn": "Am Zug",
        "board_waiting": "{player} ist dran",
        "board_contract": "Spiel",
        "board_calls": "Ansagen",
        "board_parties": "Bekannte Parteien",
        "board_tricks": "Stiche",
        "board_last": "Letzter Stich",
        "board_news": "Zuletzt",
        "board_away": "Der Computer spielt für",
        "board_marks": "Markierungen",
        "phase_reservations": "Vorbehalte",
        "phase_declarations": "Ansagen der Vorbehalte",
        "phase_exchange": "Armut: Kartentausch",
        "contract_normal": "Normalspiel",
        "contract_wedding": "Hochzeit",
        "contract_poverty": "Armut",
        "none": "keine",
        "used": "→ {label}",
        "panel_expired": (
            "Diese Ansicht deiner Karten ist abgelaufen (Discord erlaubt 15 Minuten). Drücke "
            "noch einmal „Meine Karten“."
        ),
        "panel_until": "Wird bis {time} aktuell gehalten; danach noch einmal „Meine Karten“ drücken.",
        "prompts_dm": (
            "Deine Aufforderungen kommen per Direktnachricht (und in „Meine Karten“, solange es "
            "offen ist)."
        ),
        "prompts_here": (
            "Deine Aufforderungen kommen in „Meine Karten“ im Kanal; per Direktnachricht nur, "
            "wenn es geschlossen oder abgelaufen ist."
        ),
        "missing_permissions": (
            "In diesem Kanal kann ich keinen Tisch leiten: Mir fehlt die Berechtigung {names}. "
            "Bitte einen Server-Admin, sie mir hier zu geben."
        ),
        "perm_view_channel": "Kanal ansehen",
        "perm_send_messages": "Nachrichten senden",
        "perm_embed_links": "Links einbetten",
        "perm_attach_files": "Dateien anhängen",
        "perm_read_message_history": "Nachrichtenverlauf lesen",
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
