// The ratios as a bar chart, hand-written SVG: one bar per run, lines at 0.5 and 1.0.
import type { BenchResult } from '../result.ts'

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

export function ratioChart(result: BenchResult): string {
  const bars = [
    ...result.scenarios.map((s) => ({
      label: `${s.scenario} (${s.events.toLocaleString('en')})`,
      value: s.ratio,
      kind: 'ratio',
    })),
    ...result.growth.map((g) => ({ label: `growth: ${g.scenario}`, value: g.serviceGrowth, kind: 'growth' })),
  ]
  const labelWidth = 300
  const plotWidth = 420
  const barHeight = 22
  const gap = 8
  const top = 50
  const max = Math.max(1.2, ...bars.map((b) => b.value))
  const x = (v: number) => Math.round((labelWidth + (Math.min(v, max) / max) * plotWidth) * 10) / 10
  const height = top + bars.length * (barHeight + gap) + 40
  const width = labelWidth + plotWidth + 70
  const rules = [0.5, 1].map(
    (v) =>
      `<line x1="${x(v)}" y1="${top - 6}" x2="${x(v)}" y2="${height - 34}" stroke="#888" stroke-dasharray="4 3"/>` +
      `<text x="${x(v)}" y="${height - 20}" text-anchor="middle">${v.toFixed(1)}</text>`,
  )
  const rows = bars.map((b, i) => {
    const y = top + i * (barHeight + gap)
    const colour = b.kind === 'growth' ? '#7a5195' : b.value >= 0.5 ? '#2f7d4f' : '#c0392b'
    return (
      `<text x="${labelWidth - 8}" y="${y + barHeight * 0.7}" text-anchor="end">${escapeXml(b.label)}</text>` +
      `<rect x="${labelWidth}" y="${y}" width="${Math.max(1, x(b.value) - labelWidth)}" height="${barHeight}" fill="${colour}"/>` +
      `<text x="${x(b.value) + 6}" y="${y + barHeight * 0.7}">${b.value.toFixed(2)}</text>`
    )
  })
  const title = `${result.store}, ${result.events.toLocaleString('en')} events, ${result.commit}${result.smoke ? ' (smoke)' : ''}`
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" font-family="sans-serif" font-size="13">`,
    `<title>Service ÷ baseline requests/s — ${escapeXml(title)}</title>`,
    '<rect width="100%" height="100%" fill="#fff"/>',
    `<text x="10" y="20" font-size="15" font-weight="bold">Service ÷ baseline requests/s — ${escapeXml(title)}</text>`,
    '<text x="10" y="38" fill="#555">green ≥ 0.5, red below; purple: growth (rps at the larger size ÷ smaller, 1 = flat)</text>',
    ...rules,
    ...rows,
    '</svg>',
    '',
  ].join('\n')
}
