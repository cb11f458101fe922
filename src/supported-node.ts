// The oldest Node the service runs on. better-sqlite3 13 and Kysely 0.29 need 22, and
// better-sqlite3 13 crashes Node 20 with a segmentation fault at its first statement: refusing to
// start with a line that says why beats a crash dump.
export const minimumNodeMajor = 22

/** Why this Node cannot run the service, or undefined when it can. */
export function unsupportedNode(version: string = process.versions.node): string | undefined {
  if (Number(version.split('.')[0]) >= minimumNodeMajor) return undefined
  return (
    `Node.js ${version} is too old: the service needs Node.js ${minimumNodeMajor} or later. ` +
    'Run it through npm (npm start, npx ers), which uses the Node that npm ci put in node_modules/.bin, ' +
    'or run node_modules/.bin/node yourself.'
  )
}
