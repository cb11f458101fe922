// nginx in front of both servers, for the proxied scenarios (bench/scenarios.ts, viaNginx): the
// deployment README and deploy/ recommend, where the service trusts nginx's address (TRUST_PROXY)
// and takes the client's from X-Forwarded-For. One listening port per upstream, keep-alive
// connections to it as a production configuration has them. nginx runs on the load generator's
// core: its CPU is not the service's, and the service's is what is measured.
import { spawn } from 'node:child_process'
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './processes.ts'

export interface Nginx {
  /** The URL through nginx of each upstream, in the order given. */
  readonly urls: readonly string[]
  stop(): Promise<void>
}

/** The address nginx connects to the upstreams from: what the service's TRUST_PROXY names. */
export const nginxAddress = '127.0.0.1'

export function findNginx(): string | undefined {
  for (const path of ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx']) {
    try {
      accessSync(path, constants.X_OK)
      return path
    } catch {}
  }
  return undefined
}

function config(dir: string, routes: readonly { listen: number; upstream: string }[]): string {
  const servers = routes.map(
    ({ listen, upstream }, i) => `
  upstream u${i} { server ${new URL(upstream).host}; keepalive 64; }
  server {
    listen ${nginxAddress}:${listen};
    location / {
      proxy_pass http://u${i};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_buffering on;
    }
  }`,
  )
  return `
daemon off;
master_process off;
worker_processes 1;
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 100000;
${servers.join('\n')}
}
`
}

/** Starts nginx (on the load's core, through `wrap`) proxying to each of `upstreams`. */
export async function startNginx(
  nginx: string,
  upstreams: readonly string[],
  wrap: (argv: readonly string[]) => string[],
): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'ers-bench-nginx-'))
  const routes = []
  for (const upstream of upstreams) routes.push({ listen: await freePort(), upstream })
  writeFileSync(join(dir, 'nginx.conf'), config(dir, routes))
  const [command = '', ...args] = wrap([nginx, '-p', dir, '-c', join(dir, 'nginx.conf')])
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => {
    stderr += d
  })
  const urls = routes.map(({ listen }) => `http://${nginxAddress}:${listen}`)
  const deadline = Date.now() + 20_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${stderr.trim()}`)
    const ready = await Promise.all(
      urls.map((url) =>
        fetch(`${url}/health/ready`).then(
          (res) => res.arrayBuffer().then(() => res.status === 200),
          () => false,
        ),
      ),
    )
    if (ready.every(Boolean)) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`nginx did not answer in 20 s: ${stderr.trim()}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    urls,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGQUIT')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
