"""The Play tab's own style and page script (kept apart from ``_assets``, which holds the theme,
the shared style and the Label tab's keys). ``ui.launch`` runs every page script in turn.

* Gradio's chat toolbar always draws a "Clear" (trash) button once the chat has messages, with no
  parameter to leave it out; in Play it would wipe the view of a run (not the run) with no undo,
  so it is hidden here for Play's chat.
* When a person's turn comes (``#vs-your-turn`` appears above their controls), the controls are
  scrolled into view — once per turn, and only when they are not already in the window.
"""

PLAY_CSS = """
#vs-play-chat button[aria-label="Clear"], #vs-play-chat button[title="Clear"] { display: none !important; }
.vs-turn { padding: 6px 8px; border-radius: 6px; font-weight: 600; }
.vs-turn-yours { background: #fff4e5; color: #93370d; border: 1px solid #f5b971; }
#vs-stop-confirm { border: 1px solid #f04438; }
#vs-stop-question { padding: 4px 8px; }
"""

PLAY_JS = """
() => {
  let seen = false;
  const check = () => {
    const mark = document.getElementById('vs-your-turn');
    const yours = !!(mark && mark.offsetParent !== null);
    if (yours && !seen) {
      const box = mark.closest('.gr-group') || mark;
      const send = box.querySelector('#vs-send');
      const top = mark.getBoundingClientRect().top;
      const bottom = (send || mark).getBoundingClientRect().bottom;
      if (top < 0 || bottom > window.innerHeight) mark.scrollIntoView({block: 'start'});
    }
    seen = yours;
  };
  new MutationObserver(check).observe(document.body, {childList: true, subtree: true});
}
"""
