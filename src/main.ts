// `npm start`: the server, configured by the environment.
import { ConfigError, configFromEnvironment } from './config.ts'
import { serve } from './server.ts'
import { unsupportedNode } from './supported-node.ts'

const tooOld = unsupportedNode()
try {
  if (tooOld) {
    process.stderr.write(`${tooOld}\n`)
    process.exitCode = 1
  } else await serve(configFromEnvironment(process.env))
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  process.stderr.write(`${error.message}\n`)
  process.exitCode = 2
}
