// `npm start`: the server, configured by the environment.
import { ConfigError, configFromEnvironment } from './config.ts'
import { serve } from './server.ts'

try {
  await serve(configFromEnvironment(process.env))
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  process.stderr.write(`${error.message}\n`)
  process.exitCode = 2
}
