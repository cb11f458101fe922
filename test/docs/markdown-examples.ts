// The shell examples of a Markdown document, as steps a test can run and check (test/docs/).
//
// The conventions, which CONTRIBUTING.md states for writers:
// - A fenced `sh` block is run; `sh not-run` is shown only (it needs another terminal, a server
//   of another kind, root, or a value only the reader has).
// - A command is a line that is not a comment, with its `\` continuation lines.
// - Comment lines right below a command (no blank line between) are what it prints, a line each,
//   in order; other lines may come between them. `…` stands for any text within a line.
// - An `http` block right after a `sh` block is what the block's last command printed (`curl -i`):
//   the status line, some header lines, and after a blank line the body, which may be wrapped
//   over several lines of the block (they are joined, leading spaces dropped).

export interface Step {
  /** Where the command starts, for the test's name and its failures: `README.md:120`. */
  readonly where: string
  readonly command: string
  /** Lines the output must hold, in order (`…`: any text). */
  readonly expected: string[]
}

interface Block {
  readonly info: string
  readonly lines: string[]
  /** The line number of the block's first line of content. */
  readonly start: number
}

function blocks(markdown: string): Block[] {
  const found: Block[] = []
  let open: Block | undefined
  markdown.split('\n').forEach((line, index) => {
    const fence = /^```(.*)$/.exec(line)
    if (open && fence && fence[1] === '') {
      found.push(open)
      open = undefined
    } else if (open) open.lines.push(line)
    else if (fence) open = { info: (fence[1] ?? '').trim(), lines: [], start: index + 2 }
  })
  return found
}

const isComment = (line: string) => /^\s*#/.test(line)

/** The steps of one `sh` block, with the `http` block after it as its last step's expectation. */
function stepsOf(file: string, block: Block): Step[] {
  const steps: { where: string; command: string[]; expected: string[] }[] = []
  let current: (typeof steps)[number] | undefined
  let continued = false
  let expecting = false
  block.lines.forEach((line, index) => {
    if (continued && current) {
      current.command.push(line)
      continued = line.endsWith('\\')
    } else if (line.trim() === '') {
      expecting = false
    } else if (isComment(line)) {
      if (expecting && current) current.expected.push(line.replace(/^\s*# ?/, ''))
    } else {
      current = { where: `${file}:${block.start + index}`, command: [line], expected: [] }
      steps.push(current)
      continued = line.endsWith('\\')
      expecting = true
    }
  })
  return steps.map((step) => ({
    where: step.where,
    command: step.command.join('\n'),
    expected: step.expected,
  }))
}

/** An `http` block as the lines its command's output must hold. */
function answerLines(block: Block): string[] {
  const blank = block.lines.findIndex((line) => line.trim() === '')
  const head = (blank === -1 ? block.lines : block.lines.slice(0, blank)).filter((line) => line.trim() !== '')
  const body = blank === -1 ? [] : block.lines.slice(blank + 1).map((line) => line.trimStart())
  const joined = body.join('').trim()
  return joined === '' ? head : [...head, joined]
}

/** Every runnable step of a document, in order. */
export function documentSteps(file: string, markdown: string): Step[] {
  const all = blocks(markdown)
  const steps: Step[] = []
  all.forEach((block, index) => {
    if (block.info !== 'sh') return
    const own = stepsOf(file, block)
    const next = all[index + 1]
    const last = own.at(-1)
    if (next?.info === 'http' && last) last.expected.push(...answerLines(next))
    steps.push(...own)
  })
  return steps
}

const pattern = (expected: string) =>
  new RegExp(
    `^${expected
      .trim()
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*?')}\\s*$`,
  )

/** The first expected line that the output does not hold (in order), or undefined. */
export function missingLine(output: string, expected: readonly string[]): string | undefined {
  const lines = output.split('\n').map((line) => line.replace(/\r$/, ''))
  let at = 0
  for (const line of expected) {
    const wanted = pattern(line)
    const found = lines.findIndex((candidate, index) => index >= at && wanted.test(candidate))
    if (found === -1) return line
    at = found + 1
  }
  return undefined
}
