#!/usr/bin/env node
// The `ers` command runs the compiled CLI; `npm ci` builds it (the `prepare` script), and
// `npm run build` rebuilds it after the sources change.
try {
  await import('../dist/cli/main.js')
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/main.js'))
    throw error
  process.stderr.write(
    'ers: the compiled CLI is missing; run `npm run build` in the package directory first\n',
  )
  process.exitCode = 2
}
