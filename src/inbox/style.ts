/**
 * The inbox's one inline style sheet (U2). The Content-Security-Policy allows this
 * exact text by its SHA-256 hash and nothing else: no other style, no script, no
 * image, no font, no frame.
 *
 * Untrusted text sits in boxes that isolate it: `unicode-bidi: isolate` (with
 * `<bdi>`) so it cannot reorder the text around it, `contain: paint` and
 * `overflow` so nothing it holds (stacked marks, a huge line) paints outside its box,
 * `overflow-wrap: anywhere` so a long word wraps, and a bounded height with a scroll
 * bar for long blocks, so the decision buttons stay where they are.
 *
 * @module
 */

/** The style sheet, as it is inlined in every page. */
export const STYLE = `:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--box:#f6f8fa;--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--focus:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8d96a0;--line:#30363d;--box:#161b22;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--focus:#4493f8}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header{border-bottom:1px solid var(--line);padding:.6rem 1.2rem;display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;align-items:baseline}
header .title{font-weight:600}
header .who{margin-left:auto;color:var(--muted)}
nav a{margin-right:1rem}
nav a[aria-current=page]{font-weight:600;text-decoration:none}
main{max-width:72rem;margin:0 auto;padding:1rem 1.2rem 3rem}
h1{font-size:1.35rem;margin:.4rem 0 1rem}
h2{font-size:1.05rem;margin:1.6rem 0 .5rem}
a{color:var(--focus)}
a:focus-visible,button:focus-visible,textarea:focus-visible,input:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:500;font-size:.85rem}
th:first-child{width:36%}
td{overflow:hidden;contain:paint;overflow-wrap:anywhere}
.u{unicode-bidi:isolate;overflow-wrap:anywhere}
.cc{display:inline-block;font:.75em/1.2 ui-monospace,monospace;border:1px solid var(--warn);color:var(--warn);border-radius:3px;padding:0 .2em;margin:0 .1em}
dl{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.3rem 1rem;margin:0}
dt{color:var(--muted)}
dd{margin:0;min-width:0;overflow:hidden;contain:paint;overflow-wrap:anywhere}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem}
pre{margin:0;padding:.7rem;background:var(--box);border:1px solid var(--line);border-radius:6px;max-height:24rem;overflow:auto;contain:paint;white-space:pre-wrap;overflow-wrap:anywhere;unicode-bidi:isolate;font:.85rem/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
.server{border:2px dashed var(--warn);border-radius:8px;padding:.6rem .8rem;margin-top:.5rem}
.server .from{font-size:.85rem;color:var(--warn);font-weight:600;margin:0 0 .4rem}
.state{display:inline-block;border:1px solid currentColor;border-radius:1rem;padding:0 .6rem;font-size:.85rem}
.s-awaiting_approval{color:var(--warn)}.s-succeeded,.s-approved{color:var(--ok)}.s-failed,.s-rejected,.s-outcome_unknown{color:var(--bad)}
.muted{color:var(--muted)}
.decide{display:flex;flex-wrap:wrap;gap:1.5rem;margin-top:1.5rem;padding-top:1rem;border-top:1px solid var(--line)}
.decide form{flex:1 1 20rem}
textarea{width:100%;min-height:5rem;font:inherit;padding:.4rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
button{font:inherit;font-weight:600;padding:.45rem 1.1rem;border-radius:6px;border:1px solid var(--line);cursor:pointer;background:var(--box);color:var(--fg)}
button.approve{background:var(--ok);border-color:var(--ok);color:#fff}
button.reject{border-color:var(--bad);color:var(--bad)}
label{display:block;margin:.3rem 0}
fieldset{border:1px solid var(--line);border-radius:6px;margin:0 0 .6rem;padding:.4rem .8rem}
legend{padding:0 .3rem}
input[type=radio]{margin:0 .5rem 0 0}
.notice{border-left:4px solid var(--warn);padding:.4rem .8rem;background:var(--box);margin:1rem 0}
.notice.bad{border-color:var(--bad)}
.pages{margin-top:1rem;display:flex;gap:1rem}`;
