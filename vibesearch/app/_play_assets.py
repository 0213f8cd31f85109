"""The Play tab's own style and page script (kept apart from ``_assets``, which holds the theme,
the shared style and the Label tab's keys). ``ui.launch`` runs every page script in turn.

* Gradio's chat toolbar (its top panel) always draws a "Clear" (trash) button once the chat has
  messages, with no parameter to leave it out, and a "Share" button where Gradio thinks it is on
  Spaces; Clear would wipe the view of a run (not the run) with no undo. The top panel is hidden
  on every chat of the app (``CHAT_IDS``: Play, Runs and the study player's), found by its place,
  not by its label, which Gradio translates. Each message's own Copy button stays.
* When a person's turn comes (``#vs-your-turn`` appears above their controls), the controls are
  scrolled into view — once per turn, and only when they are not already in the window.
"""

CHAT_IDS = ("vs-play-chat", "vs-runs-chat", "vs-player-chat", "vs-vote-chat-a", "vs-vote-chat-b")  # every gr.Chatbot of the app
_NO_TOOLBAR = ", ".join(f"#{chat} .icon-button-wrapper.top-panel" for chat in CHAT_IDS) + " { display: none !important; }\n"

# a study's player (the only page where #vs-player is drawn) gets no "Use via API" link in the footer
_NO_API_FOR_PLAYERS = "body:has(#vs-player) footer .show-api { display: none !important; }\n"

PLAY_CSS = _NO_TOOLBAR + _NO_API_FOR_PLAYERS + """
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
