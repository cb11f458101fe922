#!/usr/bin/env node
// The `ers-client` command runs the compiled CLI (`npm run build` in the package builds it).
try {
  await import('../dist/cli/main.js')
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/main.js'))
    throw error
  process.stderr.write(
    'ers-client: the compiled CLI is missing; run `npm run build` in the package directory first\n',
  )
  process.exitCode = 2
}
