// GET /docs renders the OpenAPI document inlined in the page's script, without fetching it.
//
// Measured in headless Chromium (issue 31; time to `.information-container` visible, a new
// context each time): most of it is Swagger UI's own work, whatever the server does: its 1.4 MB
// bundle runs (~0.5–0.9 s) before it asks for the document, then it builds its OpenAPI 3.1 model
// (ApiDOM: ~0.9 s idle for this 150 KB document; a smaller document with shared headers by $ref
// was no faster). Inlined, with no top bar, the page needs no second request after the bundle has
// run and no text to parse from it: 15 loads each, interleaved, the two cores shared (load
// average 3.5–5), median 1.94 s before and 1.45 s after (range 1.42–2.45 s, 1.31–2.33 s).
//
// Swagger UI takes the document from its `spec` option (@fastify/swagger-ui writes the options into
// swagger-initializer.js). This plugin names the server as the page was reached: the document's
// server "/" would resolve to the host's root, past a proxy's path prefix. It wraps updateSpec,
// which every way of loading a document goes through; and should Swagger UI ever prefer the `url`
// that @fastify/swagger-ui always sets too, its `download` (in place of the DownloadUrl plugin's)
// hands over the inlined document all the same, with no request. Both are public Swagger UI plugin
// interfaces (statePlugins actions and wrapActions).
//
// The plugin is written as browser JavaScript in a string because @fastify/swagger-ui serializes
// `uiConfig` functions with toString(): a function compiled here could carry a build tool's helpers.

import type { FastifySwaggerUiConfigOptions } from '@fastify/swagger-ui'

const source = `
  function serversOfThisPage() {
    // The initializer sits at <base>/docs/static/: its own URL names the base the browser reached,
    // a proxy's path prefix included.
    var script = document.querySelector('script[src$="swagger-initializer.js"]')
    var url = new URL('../../', script ? script.src : window.location.href).href
    return [{ url: url, description: 'where this page was reached' }]
  }
  function withServers(text) {
    try {
      var document = JSON.parse(text)
      if (!document || typeof document !== 'object' || !document.openapi) return text
      document.servers = serversOfThisPage()
      return JSON.stringify(document)
    } catch (e) {
      return text
    }
  }
  return {
    statePlugins: {
      spec: {
        actions: {
          download: function () {
            return function (system) {
              system.specActions.updateLoadingStatus('success')
              system.specActions.updateSpec(JSON.stringify(system.getConfigs().spec))
            }
          },
        },
        wrapActions: {
          updateSpec: function (original) {
            return function (text) {
              return original(typeof text === 'string' ? withServers(text) : text)
            }
          },
        },
      },
    },
  }
`

type SwaggerUiPlugin = NonNullable<FastifySwaggerUiConfigOptions['plugins']>[number]

/** A Swagger UI plugin: a function of no arguments returning the plugin object; never run here. */
export const inlineDocumentPlugin = new Function(source) as SwaggerUiPlugin
