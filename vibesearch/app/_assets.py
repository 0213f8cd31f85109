"""The app's CSS, its keyboard-shortcut script and its theme (system fonts: nothing from a CDN)."""

from __future__ import annotations

import json

import gradio as gr

SYSTEM_FONTS = ["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "Helvetica", "Arial", "sans-serif"]
MONO_FONTS = ["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"]


def theme() -> gr.themes.Base:
    return gr.themes.Soft(font=SYSTEM_FONTS, font_mono=MONO_FONTS, primary_hue="indigo", secondary_hue="slate")


CSS = """
.vs-card { border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 10px 12px; margin: 4px 0;
           background: var(--block-background-fill); font-size: 0.92em; }
.vs-card p { margin: 4px 0; }
.vs-card-title { font-weight: 600; font-size: 1.05em; margin-bottom: 2px; }
.vs-muted { color: var(--body-text-color-subdued); font-size: 0.9em; }
.vs-error { color: #b42318; }
.vs-badge { display: inline-block; border-radius: 10px; padding: 1px 8px; margin-left: 6px; font-size: 0.82em;
            background: var(--color-accent-soft); color: var(--body-text-color); border: 1px solid var(--border-color-accent); }
.vs-big { font-size: 1.5em; font-weight: 700; margin-right: 8px; }
.vs-score { margin: 4px 0 8px 0; }
.vs-stepper ol { list-style: none; padding-left: 0; margin: 4px 0; }
.vs-stepper li { padding: 4px 6px; border-radius: 6px; margin: 2px 0; }
.vs-stepper .vs-mark { display: inline-block; width: 1.3em; font-weight: 700; }
.vs-stepper .vs-done .vs-mark { color: #2e9e57; }
.vs-stepper .vs-current { background: var(--color-accent-soft); }
.vs-stepper .vs-current .vs-mark { color: var(--color-accent); }
.vs-stepper .vs-pending { color: var(--body-text-color-subdued); }
.vs-stepper .vs-detail { font-size: 0.82em; margin-left: 1.6em; color: var(--body-text-color-subdued); }
.vs-stepper-head { font-weight: 600; }
.vs-stats table, .vs-timeline table, .vs-agree table { width: 100%; border-collapse: collapse; }
.vs-stats table td, .vs-timeline table td, .vs-timeline table th, .vs-agree table td, .vs-agree table th {
  padding: 2px 6px; border: none !important; border-bottom: 1px solid var(--border-color-primary) !important; }
.vs-card table { border: none !important; border-collapse: collapse; margin: 0; }
.vs-card table tr { border: none !important; }
.vs-card table td, .vs-card table th { border-left: none !important; border-right: none !important; border-top: none !important; }
.vs-persona summary { cursor: pointer; color: var(--body-text-color-subdued); font-size: 0.9em; }
.vs-num { text-align: right; font-variant-numeric: tabular-nums; }
.vs-timeline .vs-adv { font-weight: 600; }
.vs-timeline .vs-shadow { color: var(--body-text-color-subdued); font-style: italic; }
.vs-triple { font-size: 1.15em; padding: 10px; }
.vs-triple .vs-part { display: inline-block; padding: 2px 8px; margin: 2px; border-radius: 6px; background: var(--background-fill-secondary); }
.vs-verdict-covered { color: #2e9e57; font-weight: 600; }
.vs-verdict-missed { color: #d9534f; font-weight: 600; }
/* a judge-review campaign's verdict on the card (not blind): set apart, so nobody takes it for their own label */
.vs-triple .vs-review { font-size: 0.9em; margin-top: 6px; padding: 4px 8px; border-left: 4px solid #d97706; background: rgba(217, 119, 6, 0.08); }
/* a dropdown's text stops before its arrow (long task and run labels ran under it) */
input[role="combobox"] { padding-right: 2.2em !important; text-overflow: ellipsis; }
/* the leaderboard's headers wrap between words, never inside one ("#Ass t") */
#vs-lb-scores th .header, #vs-lb-interaction th .header, #vs-lb-tables th .header {
  word-break: normal !important; overflow-wrap: normal !important; hyphens: none; }
#vs-lb-scores .cell-menu-button, #vs-lb-interaction .cell-menu-button, #vs-lb-tables .cell-menu-button { display: none; }
/* their numbers never break inside (a cell of "90.48" read "90." over "48" at 1440 px): the number
   columns wrap only between words (an interval may wrap after its dash), in a slightly smaller
   font with narrower padding so a percentage fits its column at 1366 px and up */
#vs-lb-scores [role=gridcell]:not([data-col="0"]):not([data-col="1"]):not([data-col="2"]):not([data-col="18"]) span,
#vs-lb-interaction [role=gridcell]:not([data-col="0"]):not([data-col="1"]) span,
#vs-lb-tables [role=gridcell]:not([data-col="0"]) span {
  word-break: normal !important; overflow-wrap: normal !important; font-variant-numeric: tabular-nums; }
#vs-lb-scores [role=gridcell] .cell-wrap, #vs-lb-interaction [role=gridcell] .cell-wrap,
#vs-lb-scores th .cell-wrap, #vs-lb-interaction th .cell-wrap { padding-left: 3px; padding-right: 3px; font-size: 0.92em; }
/* the per-stage tables under the Leaderboard (``reports.stages.stages_html``) */
.vs-stages table { border-collapse: collapse; margin: 4px 0 10px 0; }
.vs-stages th, .vs-stages td { padding: 3px 8px; border: 1px solid var(--border-color-primary); }
.vs-stages td.num, .vs-stages th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.vs-stages td.text, .vs-stages th.text { text-align: left; }
.vs-stages .note { color: var(--body-text-color-subdued); }
.vs-agree-side { margin: 6px 0 10px 0; }
.vs-splits summary { cursor: pointer; color: var(--body-text-color-subdued); font-size: 0.9em; }
.vs-error-banner { border-color: #b42318; background: #fef3f2; }
.vs-task-missing { border-left: 3px solid #b54708; background: #fffaeb; padding: 6px 10px; margin: 6px 0; }
.vs-error-banner .vs-error-text { white-space: pre-wrap; font-family: var(--font-mono); font-size: 0.85em; }
/* the Label tab: the first nine evidence choices carry the number key that ticks them */
#vs-label-evidence .wrap { counter-reset: vs-ev; flex-direction: column; align-items: flex-start; }
#vs-label-evidence .wrap > label { counter-increment: vs-ev; }
/* the evidence list beside the card scrolls in its own box: card, buttons and list fit a laptop's window */
#vs-label-evidence .wrap { max-height: max(220px, calc(100vh - 190px)); overflow-y: auto; flex-wrap: nowrap; }
#vs-label-evidence .wrap > label:nth-of-type(-n+9)::before {
  content: counter(vs-ev); display: inline-block; min-width: 1.3em; margin-right: 4px; text-align: center;
  border: 1px solid var(--border-color-primary); border-radius: 4px; font-size: 0.8em; font-family: var(--font-mono); }
#vs-label-refused p { color: #93370d; background: #fff4e5; border: 1px solid #f5b971; border-radius: 6px; padding: 4px 8px; }
.vs-keys kbd { border: 1px solid var(--border-color-primary); border-radius: 4px; padding: 0 4px; font-size: 0.85em; }
/* the voting card (app/vote.py): the persona card, then both final answers side by side, each in a
   box that scrolls on its own so the vote buttons stay in a laptop's window (1366×768) */
.vs-vote-card .vs-persona { margin: 2px 0; }
#vs-vote-answer-a, #vs-vote-answer-b { max-height: max(160px, calc(100vh - 430px)); overflow-y: auto;
  border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 6px 10px; }
#vs-vote-refused p { color: #93370d; background: #fff4e5; border: 1px solid #f5b971; border-radius: 6px; padding: 4px 8px; }
"""

# The Label tab's keys, anywhere on the tab except in a text field (a text box, the search box, a
# dropdown's input): y / n label the triple shown, s skips it, j / k move to the next / previous
# one, 1-9 tick or untick the first nine evidence checkboxes (as listed). A checkbox or a button
# holding the focus (after a click on the evidence) does not stop them. Each press of the y / n /
# s / j / k buttons (by key or click) is stamped at once, before Gradio sees the click, with the
# card shown then (its data-card), the page's count of presses, the evidence ticked (each value
# names its card) and the note; the event sends the stamp and the server refuses a press whose
# card is no longer the one shown (app/_label_keys.py).
# whether a key went to a text field (a text box, a dropdown's input), where it is typed, not a shortcut
_TYPING_JS = """
  const typing = (t) => {
    if (!t) return false;
    if (t.isContentEditable) return true;
    const tag = (t.tagName || '').toLowerCase();
    if (tag === 'textarea' || tag === 'select') return true;
    if (tag !== 'input') return false;
    const type = (t.getAttribute('type') || 'text').toLowerCase();
    return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(type);
  };
"""
SHORTCUTS_JS = """
() => {
  if (window.__vsKeys) return;
  window.__vsKeys = true;
  const stamped = ['vs-label-yes', 'vs-label-no', 'vs-label-skip', 'vs-label-next', 'vs-label-prev'];
  const pressed = stamped.map((id) => '#' + id).join(',');
  window.__vsPresses = window.__vsPresses || {};
  let presses = 0;
  document.addEventListener('click', (ev) => {
    const btn = ev.target && ev.target.closest ? ev.target.closest(pressed) : null;
    if (!btn) return;
    const card = document.querySelector('#vs-label-card [data-card]');
    const evidence = [...document.querySelectorAll('#vs-label-evidence input[type=checkbox]')].filter((b) => b.checked).map((b) => b.name);
    const note = document.querySelector('#vs-label-note textarea');
    (window.__vsPresses[btn.id] = window.__vsPresses[btn.id] || []).push(
      {card: card ? card.dataset.card : '', seq: ++presses, evidence: evidence, note: note ? note.value : ''});
  }, true);
  const ids = { y: 'vs-label-yes', n: 'vs-label-no', s: 'vs-label-skip', j: 'vs-label-next', k: 'vs-label-prev' };
""" + _TYPING_JS + """  document.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
    if (typing(ev.target)) return;
    const tab = document.getElementById('vs-label-panel');
    if (!tab || tab.offsetParent === null) return;
    const key = (ev.key || '').toLowerCase();
    if (/^[1-9]$/.test(key)) {
      const boxes = [...document.querySelectorAll('#vs-label-evidence input[type=checkbox]')].filter((b) => b.offsetParent !== null);
      const box = boxes[parseInt(key, 10) - 1];
      if (box && !box.disabled) { ev.preventDefault(); box.click(); }
      return;
    }
    const id = ids[key];
    if (!id) return;
    const btn = document.getElementById(id);
    if (btn && !btn.disabled && btn.offsetParent !== null) { ev.preventDefault(); btn.click(); }
  });
}
"""


def scroll_when_shown_js(target_id: str, shown: str, block: str = "nearest") -> str:
    """An event's page side that scrolls ``#target_id`` into the window (``block`` as in
    ``scrollIntoView``) once an element matching ``shown`` is on screen; it looks for about 30
    frames, so the answer the event waited for has been drawn (a ``.then`` after it)."""
    return f"""
() => {{
  const at = (tries) => {{
    const el = document.querySelector({json.dumps(shown)});
    if (el && el.offsetParent !== null) {{ document.getElementById({json.dumps(target_id)}).scrollIntoView({{block: {json.dumps(block)}}}); return; }}
    if (tries > 0) requestAnimationFrame(() => at(tries - 1));
  }};
  at(30);
}}
"""


# The voting card's keys (app/vote.py), on the Label tab's Vote tab and outside a text field:
# a / b pick a side, t a tie, x both bad, s skips the pair. Each press of those buttons (by key or
# click) is stamped at once with the pair shown (its data-card), the page's count of presses and
# the reason typed (sent as the stamp's note); the server refuses a press whose card is no longer
# the one shown (app/_label_keys.py, app/_vote_view.py).
VOTE_KEYS_JS = """
() => {
  if (window.__vsVoteKeys) return;
  window.__vsVoteKeys = true;
  const ids = { a: 'vs-vote-a', b: 'vs-vote-b', t: 'vs-vote-tie', x: 'vs-vote-bad', s: 'vs-vote-skip' };
  const pressed = Object.values(ids).map((id) => '#' + id).join(',');
  window.__vsPresses = window.__vsPresses || {};
  let presses = 0;
  document.addEventListener('click', (ev) => {
    const btn = ev.target && ev.target.closest ? ev.target.closest(pressed) : null;
    if (!btn) return;
    const card = document.querySelector('#vs-vote-card [data-card]');
    const reason = document.querySelector('#vs-vote-reason textarea');
    (window.__vsPresses[btn.id] = window.__vsPresses[btn.id] || []).push(
      {card: card ? card.dataset.card : '', seq: ++presses, evidence: [], note: reason ? reason.value : ''});
  }, true);
""" + _TYPING_JS + """  document.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat || typing(ev.target)) return;
    const tab = document.getElementById('vs-vote-panel');
    if (!tab || tab.offsetParent === null) return;
    const id = ids[(ev.key || '').toLowerCase()];
    const btn = id ? document.getElementById(id) : null;
    if (btn && !btn.disabled && btn.offsetParent !== null) { ev.preventDefault(); btn.click(); }
  });
}
"""
