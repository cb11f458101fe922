// A real nginx in front of services under test: one process, its config and every file it writes
// in a temporary directory, on a port the OS gave us, stopped by the test.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { freePort } from './ports.ts'

/** The nginx executable (Debian puts it in /usr/sbin, which a non-root PATH may lack), if installed. */
const nginxPath = ['nginx', '/usr/sbin/nginx'].find(
  (candidate) => spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0,
)

/** Why the tests through nginx are skipped, or undefined when they run. */
export const nginxSkipReason = nginxPath ? undefined : 'nginx is not installed (apt-get install -y nginx)'

if (nginxSkipReason) {
  // CI installs nginx: a silently skipped proxy test there would be a false green.
  if (process.env.CI === 'true') throw new Error(`CI=true but ${nginxSkipReason}`)
  process.stderr.write(`note: tests through nginx are skipped: ${nginxSkipReason}\n`)
}

/** One `location <prefix>/` proxied to a service at the root, as the example in docs/operations.md does. */
export interface ProxiedLocation {
  /** The public path prefix, without the trailing slash, e.g. `/api`. */
  readonly prefix: string
  readonly upstreamPort: number
}

export interface Nginx {
  readonly port: number
  /** `http://127.0.0.1:<port>`, without any prefix. */
  readonly origin: string
  stop(): Promise<void>
}

const locationBlock = ({ prefix, upstreamPort }: ProxiedLocation) => `
    location ${prefix}/ {
      proxy_pass http://127.0.0.1:${upstreamPort}/;
      proxy_set_header X-Forwarded-Prefix ${prefix};
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }`

function config(dir: string, port: number, locations: readonly ProxiedLocation[]): string {
  const path = (name: string) => join(dir, name)
  // One foreground process, no user switch: nothing outside `dir` is read or written.
  return `daemon off;
master_process off;
worker_processes 1;
pid ${path('nginx.pid')};
error_log ${path('error.log')} warn;
events { worker_connections 64; }
http {
  access_log ${path('access.log')};
  client_body_temp_path ${path('client_body')};
  proxy_temp_path ${path('proxy')};
  fastcgi_temp_path ${path('fastcgi')};
  uwsgi_temp_path ${path('uwsgi')};
  scgi_temp_path ${path('scgi')};
  server {
    listen 127.0.0.1:${port};
${locations.map(locationBlock).join('\n')}
  }
}
`
}

/** Starts nginx proxying each location to its service and waits until it answers. */
export async function startNginx(locations: readonly ProxiedLocation[]): Promise<Nginx> {
  if (!nginxPath) throw new Error(nginxSkipReason)
  for (let attempt = 1; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'ers-nginx-'))
    const port = await freePort()
    writeFileSync(join(dir, 'nginx.conf'), config(dir, port, locations))
    const child = spawn(nginxPath, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    const exited = once(child, 'exit')
    const origin = `http://127.0.0.1:${port}`
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM') // nginx: fast shutdown
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    }
    if (await answers(origin, child)) return { port, origin, stop }
    const log = `${stderr}${readLog(join(dir, 'error.log'))}`
    await stop()
    // Another process took the port between our check and nginx's bind: try another one.
    if (attempt < 3 && /Address already in use/.test(log)) continue
    throw new Error(`nginx did not start:\n${log}`)
  }
}

/** Polls until nginx answers any HTTP request; false as soon as it has exited. */
async function answers(origin: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false
    try {
      const res = await request(`${origin}/`, { method: 'GET' })
      await res.body.dump()
      return true
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  return false
}

function readLog(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}
