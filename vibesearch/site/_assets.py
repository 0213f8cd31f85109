"""The site's one stylesheet and its two small scripts, inlined into every page that uses them.

Neither script ever puts text into the page as HTML: every string from the data goes in through
``textContent`` (or ``createTextNode``), so a task or an agent reply holding markup shows as text.
"""

from __future__ import annotations

STYLE = """
:root{--ink:#1d232b;--muted:#5b6673;--line:#d9dee5;--soft:#f4f6f9;--good:#2e9e57;--bad:#d62728;--accent:#2b6cb0}
*{box-sizing:border-box}body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);margin:0;background:#fff}
nav{background:#1d232b;padding:.6em 1.5em}nav a{color:#fff;text-decoration:none;font-weight:600}
main{max-width:1280px;margin:0 auto;padding:1em 1.5em 3em}
h1{font-size:1.6em;margin:.4em 0}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid var(--line);padding-bottom:.2em}
h3{font-size:1.05em}.note{color:var(--muted);font-size:.92em}
table{border-collapse:collapse;margin:.8em 0;font-size:13px;width:100%}
th,td{border:1px solid var(--line);padding:4px 7px;text-align:right;vertical-align:top}
th{background:var(--soft);font-weight:600}td.text,th.text{text-align:left}td.num{white-space:nowrap}
table.sortable th{cursor:pointer;user-select:none}table.sortable th[aria-sort=ascending]::after{content:" ▲"}
table.sortable th[aria-sort=descending]::after{content:" ▼"}
.mark{color:var(--bad);font-weight:600}.noise{color:var(--muted);font-size:.9em}
.card{border:1px solid var(--line);border-radius:8px;padding:.8em 1em;background:var(--soft);margin:.8em 0}
.grid{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1.2em}
.msg{border:1px solid var(--line);border-radius:8px;padding:.5em .8em;margin:.5em 0;white-space:pre-wrap;overflow-wrap:anywhere}
.msg.user{background:#eef4ff}.msg.assistant{background:#fff}.msg .who{font-size:.8em;color:var(--muted);display:block;margin-bottom:.2em}
details.tool{margin:.3em 0 .3em 1.2em;font-size:.88em}details.tool pre{white-space:pre-wrap;overflow-wrap:anywhere;max-height:22em;overflow:auto;background:var(--soft);padding:.5em;margin:.3em 0}
.event{font-size:.82em;color:var(--muted);margin:.2em 0 .2em 1.2em}
ol.stepper{list-style:none;padding:0;margin:.5em 0}ol.stepper li{padding:.3em .6em;border-left:4px solid var(--line);margin:.2em 0}
ol.stepper li.reached{border-left-color:var(--good);background:#eef8f1}
.controls button,.controls select{font:inherit;padding:.3em .9em;margin-right:.3em;border:1px solid var(--line);border-radius:6px;background:#fff;cursor:pointer}
.controls button:hover{background:var(--soft)}#replay-position{font-variant-numeric:tabular-nums;margin-left:.6em;font-weight:600}
#replay-log{max-height:40em;overflow:auto;border:1px solid var(--line);border-radius:8px;padding:.4em .8em;margin-top:.6em}
.covered{color:var(--good);font-weight:600}.missed{color:var(--bad);font-weight:600}.unscored{color:var(--muted)}
svg.graph{width:100%;height:auto;border:1px solid var(--line);border-radius:8px;background:#fff}
.legend span{display:inline-block;margin-right:1.2em;font-size:.85em}.legend i{display:inline-block;width:1.6em;height:3px;vertical-align:middle;margin-right:.4em}
ul.missed-list li{margin:.15em 0}.unlinked{color:var(--muted)}code{font-size:.9em}
@media (max-width:900px){.grid{grid-template-columns:1fr}}
"""

# click a header of a table.sortable: its rows sorted by that column (numbers by their raw value)
SORT_JS = """
(function(){
  function key(cell){
    if(!cell) return {n:null,t:""};
    var num = cell.querySelector('[data-value]');
    var raw = num ? num.getAttribute('data-value') : cell.getAttribute('data-value');
    if(raw !== null && raw !== '' && !isNaN(Number(raw))) return {n:Number(raw),t:""};
    return {n:null,t:(cell.textContent||'').trim().toLowerCase()};
  }
  function compare(a,b){
    if(a.n!==null && b.n!==null) return a.n-b.n;
    if(a.n!==null) return -1; if(b.n!==null) return 1;
    return a.t<b.t?-1:a.t>b.t?1:0;
  }
  document.querySelectorAll('table.sortable').forEach(function(table){
    var heads = table.querySelectorAll('thead th');
    heads.forEach(function(th,col){
      th.setAttribute('title','sort by this column');
      th.addEventListener('click',function(){
        var down = th.getAttribute('aria-sort')==='ascending';
        heads.forEach(function(h){h.removeAttribute('aria-sort');});
        th.setAttribute('aria-sort',down?'descending':'ascending');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function(r1,r2){
          var c = compare(key(r1.cells[col]),key(r2.cells[col]));
          return down?-c:c;
        });
        rows.forEach(function(r){body.appendChild(r);});
      });
    });
  });
})();
"""

# the replay: the run's transcript view (its parts in stored order: ``Transcript.as_dict``; embedded
# JSON, maybe gzipped) shown one part at a time; a tool call comes with its result
REPLAY_JS = """
(function(){
  var holder = document.getElementById('run-events');
  if(!holder) return;
  function el(tag, cls, text){var e=document.createElement(tag); if(cls) e.className=cls; if(text!==undefined) e.textContent=text; return e;}
  function load(){
    var raw = holder.textContent;
    if(holder.getAttribute('data-encoding')!=='gzip-base64') return Promise.resolve(JSON.parse(raw));
    var bin = atob(JSON.parse(raw)); var bytes = new Uint8Array(bin.length);
    for(var i=0;i<bin.length;i++) bytes[i]=bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text().then(JSON.parse);
  }
  load().then(function(events){
    var pos = 0, timer = null;
    var log = document.getElementById('replay-log');
    var shown = document.getElementById('replay-position');
    var state = document.getElementById('replay-state');
    var speed = document.getElementById('replay-speed');
    function setState(s){state.textContent=s; state.setAttribute('data-state',s);}
    function update(){shown.textContent = pos + ' / ' + events.length;}
    function stage(ev){
      document.querySelectorAll('#replay-stepper li').forEach(function(li){
        var i = Number(li.getAttribute('data-stage'));
        li.classList.toggle('reached', i <= ev.stage_index);
      });
    }
    function render(ev){
      var k = ev.kind;
      if(k==='message'){
        var box = el('div','msg '+(ev.role==='user'?'user':'assistant'));
        box.appendChild(el('span','who', ev.role + (ev.phase && ev.phase!=='dialogue' ? ' · '+ev.phase : '')));
        box.appendChild(document.createTextNode(ev.content||''));
        log.appendChild(box);
      } else if(k==='tool_call'){
        var d = el('details','tool'); d.appendChild(el('summary',null,'tool call: '+(ev.tool||'')));
        d.appendChild(el('pre',null,JSON.stringify(ev.arguments||{},null,2)));
        var r = ev.result;
        if(r){d.appendChild(el('div','event','result')); d.appendChild(el('pre',null,(r.error?'error: ':'')+(r.content||'')));}
        log.appendChild(d);
      } else if(k==='tool_result'){  // a result whose call is not in the run
        var d2=el('details','tool'); d2.appendChild(el('summary',null,'tool result: '+(ev.tool||'')));
        d2.appendChild(el('pre',null,(ev.error?'error: ':'')+(ev.content||''))); log.appendChild(d2);
      } else if(k==='stage'){
        if(!ev.shadow) stage(ev);
        log.appendChild(el('div','event',(ev.shadow?'shadow ':'')+'stage '+(ev.stage_index+1)+(ev.stage_name?' ('+ev.stage_name+')':'')+' · '+(ev.reply_kind||'')+(ev.advanced?' · advanced':'')));
      } else if(k==='graph'){
        log.appendChild(el('div','event','graph: '+((ev.triples||[]).length)+' triples'));
      } else if(k==='end'){
        log.appendChild(el('div','event','end: '+(ev.termination||'')+(ev.detail?' — '+ev.detail:'')));
      } else if(k==='error'){
        log.appendChild(el('div','event','error ('+(ev.source||'')+'): '+(ev.message||'')));
      } else if(k==='compaction'){
        log.appendChild(el('div','event','compaction: '+ev.tokens_before+' → '+ev.tokens_after+' tokens'));
      } else {
        log.appendChild(el('div','event',k+(ev.text?': '+ev.text:'')));
      }
      log.scrollTop = log.scrollHeight;
    }
    function begin(){  // the page opens showing the run's outcome; the replay starts from nothing
      if(pos===0){log.textContent=''; stage({stage_index:-1});}
    }
    function step(){
      if(pos>=events.length){stop('ended');return false;}
      begin(); render(events[pos]); pos++; update();
      if(pos>=events.length) stop('ended');
      return true;
    }
    function stop(s){if(timer){clearInterval(timer);timer=null;} setState(s);}
    function play(){
      if(pos>=events.length) return;
      if(timer) clearInterval(timer);
      timer = setInterval(step, Math.max(20, 500/Number(speed.value||1)));
      setState('playing');
    }
    function reset(){stop('paused'); pos=0; log.textContent=''; stage({stage_index:-1}); update();}
    document.getElementById('replay-play').addEventListener('click',play);
    document.getElementById('replay-pause').addEventListener('click',function(){stop('paused');});
    document.getElementById('replay-step').addEventListener('click',function(){stop('paused'); step();});
    document.getElementById('replay-reset').addEventListener('click',reset);
    speed.addEventListener('change',function(){if(timer) play();});
    log.appendChild(el('p','note','Press Play or Step to replay the '+events.length+' parts of the transcript of this run.'));
    update(); setState('ready');
  });
})();
"""
