"""Spell checking of the prose (issue 24): the core's tokenizer on real reports, the
checker, the personal dictionary; the editor's wavy underline and its right-click menu."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCharFormat
from PySide6.QtTest import QTest

from labwright.cli import main
from labwright.core.report.review.spelling import (
    PersonalDictionary,
    Speller,
    document_words,
    prose_words,
)
from labwright.gui.editor import EditorPanel, LatexEditor

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pendulum"
WAVY = QTextCharFormat.UnderlineStyle.SpellCheckUnderline
# what the offscreen platform says when a menu pops up (a real screen says nothing)
MENU = pytest.mark.qt_log_ignore(
    "This plugin does not support (raise|propagateSizeHints|grabbing the keyboard)"
)


def words_of(tex: str) -> list[str]:
    return [w.text for _, w in document_words(tex)]


# -- the tokenizer ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tex", "expected"),
    [
        ("We measured the period.", ["We", "measured", "the", "period"]),
        ("\\includegraphics[width=0.8\\linewidth]{figures/table1} shows it", ["shows", "it"]),
        ("See Table~\\ref{tab:data} and \\cite{knuth,taylor}.", ["See", "Table", "and"]),
        ("\\label{fig:pendulum}\\usepackage[margin=2cm]{geometry}", []),
        ("\\begin{tabular}{@{}lrr@{}} cell & value \\\\", ["cell", "value"]),
        ("$\\omega = 2\\pi f$ is the angular frequency", ["is", "the", "angular", "frequency"]),
        ("\\(x\\) and \\[y\\] and $$z$$ too", ["and", "and", "too"]),
        ("Speed % a coment here", ["Speed"]),
        ("50\\% of \\verb|recieve| runs", ["of", "runs"]),
        ("\\SI{9.81}{\\metre\\per\\second} and \\si{\\kilo\\gram}", ["and"]),
        ("\\textbf{Bold} \\emph{words} \\caption{A caption}", ["Bold", "words", "caption"]),
        ("The CSV in data.csv, e.g. t10 and LaTeX and pH", ["The", "in", "and", "and"]),
        ("使用Pythn进行实验：周期与摆长", ["Pythn"]),
        ("the pendulum's period isn’t long", ["the", "pendulum's", "period", "isn't", "long"]),
        ("\\href{http://example.org/recieve}{the site}", ["the", "site"]),
    ],
)
def test_only_prose_words_are_found(tex, expected):
    assert words_of(tex) == expected


def test_math_verbatim_and_key_arguments_go_on_over_lines():
    tex = "\n".join(
        [
            "Before \\begin{equation}",
            "  recieve = mc^2",
            "\\end{equation} after",
            "\\begin{verbatim}",
            "  recieve $ { % nothing here is LaTeX",
            "\\end{verbatim}",
            "\\includegraphics[width=3cm]{figures/",
            "  recieve.png} beside",
            "Again $stray dollar",
            "",
            "recieve",  # a paragraph ended the stray $: prose again
        ]
    )
    found = [(n, w.text) for n, w in document_words(tex)]
    assert found == [(1, "Before"), (3, "after"), (8, "beside"), (9, "Again"), (11, "recieve")]


def test_the_offline_reports_prose_is_found_and_their_keys_are_not(offline_template, tmp_path):
    folder = tmp_path / "pendulum"
    shutil.copytree(EXAMPLE, folder)
    assert main(["run", str(folder), "--offline", "--no-compile", "--template", "lab-zh",
                 "--out", str(tmp_path / "zh")]) == 10  # fmt: skip
    for run in (offline_template, tmp_path / "zh"):
        tex = (run / "report.tex").read_text(encoding="utf-8")
        found = set(words_of(tex))
        for key in ("geometry", "hidelinks", "htbp", "linewidth", "keepaspectratio", "tab",
                    "booktabs", "document", "metre", "raggedright", "dimexpr", "tabcolsep"):  # fmt: skip
            assert key not in found, key  # options, packages, labels, paths, units, envs
        assert "pendulum" in found  # the title and the hints are prose
        assert not any(ord(c) > 0x2E80 for w in found for c in w)  # no CJK word
    english = words_of((offline_template / "report.tex").read_text(encoding="utf-8"))
    assert {"complete", "measurements", "apparatus", "discrepancy"} <= set(english)


def test_the_projectile_report_misspells_only_what_is_not_a_word(projectile, tmp_path):
    assert (
        main(["run", str(projectile), "--offline", "--no-compile", "--out", str(tmp_path / "r")])
        == 10
    )
    tex = (tmp_path / "r" / "report.tex").read_text(encoding="utf-8")
    speller = Speller("en", PersonalDictionary(tmp_path / "words.txt"))
    words = words_of(tex)
    misspelt = {w for w in words if speller.is_misspelt(w)}
    assert len(words) > 500 and len(misspelt) < 15  # column names of the data, tool names
    assert not misspelt & {"velocity", "angle", "range", "height", "experimental", "summarise"}
    planted = tex.replace("\\section{Analysis}", "\\section{Analysis}\nThe velocty was high.")
    assert "velocty" in {w for w in words_of(planted) if speller.is_misspelt(w)}


# -- the checker -----------------------------------------------------------------------


@pytest.fixture
def speller(tmp_path) -> Speller:
    return Speller("en", PersonalDictionary(tmp_path / "dictionary.txt"))


def test_misspellings_are_found_with_suggestions_in_their_case(speller):
    assert speller.is_misspelt("recieve") and not speller.is_misspelt("receive")
    assert speller.suggestions("recieve")[0] == "receive"
    assert speller.suggestions("Recieve")[0] == "Receive"
    assert len(speller.suggestions("teh")) == 5  # at most five
    assert speller.suggestions("uncertainity") == ["uncertainty"]


def test_british_spellings_are_words_and_their_typos_are_not(speller):
    for word in ("colour", "metre", "summarise", "modelling", "analyse", "centre", "behaviour"):
        assert not speller.is_misspelt(word), word
    for word in ("colur", "metree", "sumarise"):
        assert speller.is_misspelt(word), word


def test_a_chinese_report_checks_its_latin_words_in_english(tmp_path):
    zh = Speller("zh", PersonalDictionary(tmp_path / "d.txt"))
    assert zh.languages == ["en"]  # pyspellchecker has no Chinese: English for Latin words
    (word,) = prose_words("使用Pythn进行实验")[0]
    assert zh.is_misspelt(word.text) and not zh.is_misspelt("Python")


def test_added_words_persist_atomically_and_ignored_ones_do_not(tmp_path):
    path = tmp_path / "home" / "dictionary.txt"
    s = Speller("en", PersonalDictionary(path))
    s.add("Labwright")
    s.ignore("Wobblemeter")
    assert not s.is_misspelt("Labwright") and not s.is_misspelt("Wobblemeter")
    assert path.read_text(encoding="utf-8") == "Labwright\n"
    assert [p.name for p in path.parent.iterdir()] == ["dictionary.txt"]  # no temp file left
    again = Speller("en", PersonalDictionary(path))
    assert not again.is_misspelt("Labwright") and again.is_misspelt("Wobblemeter")


# -- the editor ------------------------------------------------------------------------


@pytest.fixture
def panel(qtbot) -> EditorPanel:
    p = EditorPanel()
    qtbot.addWidget(p)
    p.resize(700, 400)
    p.show()
    qtbot.waitExposed(p)
    return p


def underlined(editor: LatexEditor) -> list[tuple[int, str]]:
    """(line, text) of every wavy-underlined stretch, as the highlighter left them."""
    out = []
    block = editor.document().firstBlock()
    while block.isValid():
        spans: list[list[int]] = []
        for r in sorted(block.layout().formats(), key=lambda r: r.start):
            if r.format.underlineStyle() == WAVY:
                if spans and spans[-1][1] == r.start:
                    spans[-1][1] = r.start + r.length
                else:
                    spans.append([r.start, r.start + r.length])
        out += [(block.blockNumber() + 1, block.text()[a:b]) for a, b in spans]
        block = block.next()
    return out


TEXT = "\n".join(
    [
        "We recieve the data.",
        "\\includegraphics{figures/table1} and \\includegraphics{figures/recieve}",
        "$\\omega$ or $\\omegaa + recieve$ or \\label{sec:recieve}",
        "The omegaa here % and recieve in a comment",
    ]
)


def test_the_editor_underlines_a_misspelt_word_and_no_command_math_or_path(panel):
    editor = panel.editor
    editor.set_spell_language("en")
    editor.set_text(TEXT)
    assert underlined(editor) == [(1, "recieve"), (4, "omegaa")]
    assert editor.highlighter.format_for("command").underlineStyle() != WAVY
    editor.set_spell_language(None)  # off: no underline
    assert underlined(editor) == []


def _right_click_on(qtbot, editor: LatexEditor, line: int, column: int):
    """A right click at a place of the text, sent to the window as the platform sends it
    (so Qt makes the context-menu event itself); the menu that opens."""
    cursor = editor.textCursor()
    cursor.setPosition(editor.document().findBlockByNumber(line - 1).position() + column)
    where = editor.cursorRect(cursor).center() + QPoint(2, 0)
    top = editor.window()
    QTest.mouseClick(
        top.windowHandle(),
        Qt.MouseButton.RightButton,
        Qt.KeyboardModifier.NoModifier,
        editor.viewport().mapTo(top, where),
    )
    qtbot.waitUntil(lambda: editor.context_menu is not None and editor.context_menu.isVisible())
    return editor.context_menu


def _click(qtbot, menu, text: str) -> None:
    action = next(a for a in menu.actions() if a.text() == text)
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())


@MENU
def test_right_click_offers_suggestions_and_one_replaces_the_word(qtbot, panel):
    editor = panel.editor
    editor.set_spell_language("en")
    editor.set_text(TEXT)
    edits = []
    editor.text_edited.connect(lambda: edits.append(1))
    menu = _right_click_on(qtbot, editor, 1, 5)  # in "recieve"
    texts = [a.text() for a in menu.actions()]
    assert texts[0] == "receive" and menu.actions()[0].font().bold()
    assert "Add “recieve” to Dictionary" in texts and "Ignore “recieve”" in texts
    suggestions = texts[: texts.index("Add “recieve” to Dictionary")]
    assert 1 <= len(suggestions) <= 5
    assert any(a.text() for a in menu.actions()[len(suggestions) + 3 :])  # the standard ones
    _click(qtbot, menu, "receive")
    assert editor.text().splitlines()[0] == "We receive the data."
    assert edits and (1, "recieve") not in underlined(editor)  # an edit: saved, undoable
    editor.undo()
    assert editor.text().splitlines()[0] == "We recieve the data."


@MENU
def test_right_click_add_to_dictionary_writes_the_personal_list(qtbot, panel, isolated_home):
    editor = panel.editor
    editor.set_spell_language("en")
    editor.set_text(TEXT)
    menu = _right_click_on(qtbot, editor, 4, 6)  # in "omegaa"
    _click(qtbot, menu, "Add “omegaa” to Dictionary")
    assert (4, "omegaa") not in underlined(editor) and (1, "recieve") in underlined(editor)
    assert (isolated_home / "dictionary.txt").read_text(encoding="utf-8") == "omegaa\n"
    other = EditorPanel()
    qtbot.addWidget(other)
    other.editor.set_spell_language("en")
    other.editor.set_text("The omegaa is known now.")
    assert underlined(other.editor) == []


@MENU
def test_right_click_ignore_only_for_this_session(qtbot, panel, isolated_home):
    editor = panel.editor
    editor.set_spell_language("en")
    editor.set_text(TEXT)
    menu = _right_click_on(qtbot, editor, 1, 5)
    _click(qtbot, menu, "Ignore “recieve”")
    assert underlined(editor) == [(4, "omegaa")]
    assert not (isolated_home / "dictionary.txt").exists()


@MENU
def test_right_click_on_a_correct_word_shows_the_standard_menu(qtbot, panel):
    editor = panel.editor
    editor.set_spell_language("en")
    editor.set_text(TEXT)
    menu = _right_click_on(qtbot, editor, 1, 12)  # in "data"
    assert not [a for a in menu.actions() if "Dictionary" in a.text()]
    assert menu.actions() and menu.actions()[0].text()  # Undo, Copy, ...
    menu.close()


def test_the_review_pane_checks_the_report_in_its_language(qtbot, window_for, offline_run):
    w = window_for()
    w.open_run(offline_run)
    editor = w.review.editor
    assert editor.highlighter.speller is not None and editor.highlighter.speller.language == "en"
    line = next(
        n for n, t in enumerate(editor.text().splitlines(), 1) if t.startswith("\\section{Theory")
    )
    editor.go_to_line(line + 1)
    qtbot.keyClick(editor, Qt.Key.Key_Home)
    qtbot.keyClicks(editor, "The lenght was measured. ")
    assert (line + 1, "lenght") in underlined(editor)


def test_a_word_being_typed_is_judged_when_it_is_finished_or_typing_pauses(qtbot, panel):
    """Typing a word letter by letter changes no underline (each change repaints the
    whole view); the word is judged at the space after it, or once typing pauses."""
    editor = panel.editor
    editor.set_spell_language("en")
    editor.set_text("Start.")
    editor.go_to_line(1)
    qtbot.keyClick(editor, Qt.Key.Key_End)
    qtbot.keyClicks(editor, " We recie")
    assert underlined(editor) == []  # "recie" is still being typed
    qtbot.keyClicks(editor, "ve the")
    assert underlined(editor) == [(1, "recieve")]  # finished by the space
    qtbot.keyClicks(editor, " dta")
    assert underlined(editor) == [(1, "recieve")]
    qtbot.waitUntil(lambda: underlined(editor) == [(1, "recieve"), (1, "dta")], timeout=3_000)
