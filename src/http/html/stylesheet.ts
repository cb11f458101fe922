// The HTML view's one stylesheet (served by html/assets.ts; no inline style, which the
// Content-Security-Policy forbids). System fonts, readable line length, a focus ring that shows.
export const stylesheet = `
:root { color-scheme: light dark; --accent: #1f5fa8; --error: #b00020; --muted: #555; }
@media (prefers-color-scheme: dark) { :root { --accent: #8ab4f8; --error: #ff8a80; --muted: #aaa; } }
body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 0 1rem 2rem; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: Canvas; padding: .5rem; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: baseline; border-bottom: 1px solid; }
header .brand { font-weight: bold; margin: .75rem 0; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 1rem; margin: 0; padding: 0; }
[aria-current="page"] { font-weight: bold; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #8884; vertical-align: top; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dt { font-weight: bold; }
dd { margin: 0; }
form { margin: 1rem 0; }
fieldset { border: 1px solid #8886; margin: 0 0 1rem; }
label { display: block; font-weight: bold; margin-top: .5rem; }
input, select { display: block; font: inherit; padding: .25rem; max-width: 100%; }
button { display: block; font: inherit; padding: .3rem .9rem; margin-top: .75rem; cursor: pointer; }
.hint { color: var(--muted); font-size: .9em; margin: 0; }
.field-error { color: var(--error); margin: 0; }
.field-error:empty { display: none; }
[aria-invalid="true"] { border-color: var(--error); }
.status { border-left: 4px solid var(--accent); padding-left: .5rem; min-height: 1.5em; }
.status:empty { border: 0; }
.pages { margin: 1rem 0; }
code { overflow-wrap: anywhere; }
/* A row's name (a field of /rel/…) is one word: never broken inside it, whatever the other columns need. */
th[scope="row"], th[scope="row"] code { white-space: nowrap; overflow-wrap: normal; }
dialog { max-width: 30rem; border: 1px solid; padding: 1rem 1.25rem; }
dialog::backdrop { background: #0006; }
dialog .question { font-weight: bold; margin-top: 0; }
dialog .choices { display: flex; gap: 1rem; }
`
