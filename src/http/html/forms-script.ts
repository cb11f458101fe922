// The script of the HTML view's write forms, served as /assets/forms-<hash>.js (html/assets.ts).
// It is a string here because the build is `tsc` into dist/, which copies no .js file from src/;
// it is plain browser JavaScript (ES2020, no dependencies), read by no bundler.
//
// What it does, declaratively from the markup (html/forms.ts): a <form data-write> sends the
// contract's own JSON request with fetch and Basic credentials typed into the page (kept in the
// two inputs only, never in a cookie or storage; `credentials: 'omit'` keeps the browser from
// remembering or prompting for them), then tells the person what happened, in words, in the
// page's status region: the new state after an edit, field errors beside their fields (422), a
// stale edit (412) with the offer to load the current version. A PATCH form sends a merge patch of
// the fields the person changed; a form with a <dialog data-confirm> asks in the page first. How the
// page shows a representation it receives is in forms-script-state.ts.
import { stateScript } from './forms-script-state.ts'

export const formsScript = `'use strict'
;(function () {
  var statusRegion = document.getElementById('status')
${stateScript}

  function say(text, link) {
    if (!statusRegion) return
    statusRegion.textContent = text
    if (link) {
      var a = document.createElement('a')
      a.href = link.href
      a.textContent = link.text
      statusRegion.append(' ', a)
    }
  }

  function basic(user, password) {
    var bytes = new TextEncoder().encode(user + ':' + password)
    var binary = ''
    bytes.forEach(function (b) {
      binary += String.fromCharCode(b)
    })
    return 'Basic ' + btoa(binary)
  }

  function credentials() {
    var user = document.getElementById('username')
    var password = document.getElementById('password')
    if (!user || !password || user.value === '' || password.value === '') {
      say('Type a user name and a password first (an editor’s), then send again.')
      if (user) user.focus()
      return undefined
    }
    return basic(user.value, password.value)
  }

  function bodyOf(form) {
    var body = {}
    var patch = form.getAttribute('data-method') === 'PATCH'
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.name || field.type === 'submit' || field.type === 'button') return
      // RFC 7396: a merge patch carries the members to change; the unchanged ones stay out.
      if (patch && field.value === initial(field)) return
      if (field.type === 'number' || field.hasAttribute('data-number')) {
        if (field.value !== '') body[field.name] = Number(field.value)
      } else {
        body[field.name] = field.value
      }
    })
    return body
  }

  function clearErrors(form) {
    form.querySelectorAll('[data-error-for]').forEach(function (slot) {
      slot.textContent = ''
    })
    form.querySelectorAll('[aria-invalid]').forEach(function (field) {
      field.removeAttribute('aria-invalid')
    })
  }

  function readProblem(response) {
    return response.text().then(function (text) {
      try {
        return JSON.parse(text)
      } catch (e) {
        return { detail: text }
      }
    })
  }

  function showFieldErrors(form, problem) {
    var unplaced = []
    var first
    ;(problem.errors || []).forEach(function (error) {
      var name = String(error.pointer || '').split('/')[1] || ''
      var slot = name && form.querySelector('[data-error-for="' + name + '"]')
      var field = name && form.querySelector('[name="' + name + '"]')
      if (slot) {
        slot.textContent = error.detail
        if (field) {
          field.setAttribute('aria-invalid', 'true')
          first = first || field
        }
      } else {
        unplaced.push((name ? name + ' ' : '') + error.detail)
      }
    })
    say(
      'Nothing was saved: ' +
        (unplaced.length > 0 ? unplaced.join('; ') : 'correct the fields marked below and send again.'),
    )
    if (first) first.focus()
  }

  function reloadCurrent(form) {
    var self = form.getAttribute('data-action')
    fetch(self, {
      headers: { accept: form.getAttribute('data-accept') },
      credentials: 'omit',
      cache: 'no-store',
    }).then(function (response) {
      if (!response.ok) return say('The current version could not be read (' + response.status + ').')
      return response.json().then(function (representation) {
        show(representation, response.headers.get('etag'))
        say('This is the current version. Make your change again if you still want it.')
      })
    }, unreachable)
  }

  function offerReload(form) {
    say(
      'Someone changed this after the page was loaded, so your change was not saved (412 Precondition Failed). ',
    )
    var button = document.createElement('button')
    button.type = 'button'
    button.textContent = 'Load the current version'
    button.addEventListener('click', function () {
      reloadCurrent(form)
    })
    statusRegion.append(button)
    button.focus()
  }

  function unreachable(error) {
    say('The service could not be reached: ' + error.message)
  }

  function explain(form, response) {
    return readProblem(response).then(function (problem) {
      var detail = problem.detail ? ' ' + problem.detail : ''
      switch (response.status) {
        case 401:
          return say('The user name or password was not accepted (401). Check them and send again.')
        case 403:
          return say('This user may not make changes (403): that needs an editor.')
        case 404:
          return say('It no longer exists (404).', { href: form.getAttribute('data-collection'), text: 'Back to the list' })
        case 412:
          return offerReload(form)
        case 422:
          return showFieldErrors(form, problem)
        case 429:
          return say('Too many requests (429); wait ' + (response.headers.get('retry-after') || 'a few') + ' seconds and send again.')
        default:
          return say('Nothing was changed: ' + response.status + ' ' + (problem.title || response.statusText) + '.' + detail)
      }
    })
  }

  function succeed(form, response) {
    var outcome = form.getAttribute('data-success')
    if (outcome === 'deleted') {
      document.querySelectorAll('form[data-write]').forEach(function (other) {
        other.hidden = true
      })
      return say('Deleted.', { href: form.getAttribute('data-collection'), text: 'Back to the list' })
    }
    return response.json().then(function (representation) {
      if (outcome === 'created') {
        form.reset()
        var label = representation.title || representation.name || String(representation.id)
        return say('Created:', { href: response.headers.get('location'), text: label })
      }
      show(representation, response.headers.get('etag'))
      say('Saved. The page shows the new state.')
    })
  }

  function send(form) {
    var authorization = credentials()
    if (!authorization) return
    clearErrors(form)
    var method = form.getAttribute('data-method')
    var headers = { authorization: authorization, accept: form.getAttribute('data-accept') || '*/*' }
    var init = { method: method, headers: headers, credentials: 'omit', cache: 'no-store' }
    var type = form.getAttribute('data-type')
    if (type) {
      headers['content-type'] = type
      init.body = JSON.stringify(bodyOf(form))
    }
    var etag = form.getAttribute('data-if-match')
    if (etag) headers['if-match'] = etag
    say('Sending…')
    fetch(form.getAttribute('data-action'), init).then(function (response) {
      return response.ok ? succeed(form, response) : explain(form, response)
    }, unreachable)
  }

  document.querySelectorAll('[data-needs-script]').forEach(function (element) {
    element.hidden = false
  })
  // The question asked before sending, in the page's own <dialog>: "yes" sends, "no" or Escape
  // closes it and sends nothing.
  function confirmThenSend(form, dialog) {
    var yes = dialog.querySelector('[data-confirm-yes]')
    var no = dialog.querySelector('[data-confirm-no]')
    yes.addEventListener('click', function () {
      dialog.close('yes')
      send(form)
    })
    no.addEventListener('click', function () {
      dialog.close('no')
    })
    dialog.addEventListener('close', function () {
      if (dialog.returnValue !== 'yes') say('Nothing was deleted.')
    })
    return function () {
      dialog.returnValue = ''
      dialog.showModal()
    }
  }

  document.querySelectorAll('form[data-write]').forEach(function (form) {
    var dialog = form.querySelector('dialog[data-confirm]')
    var submit = dialog ? confirmThenSend(form, dialog) : function () { send(form) }
    form.addEventListener('submit', function (event) {
      event.preventDefault()
      submit()
    })
  })
  // A GET form leaves its empty fields out: the service reads "from=" as a date that is not one.
  document.querySelectorAll('form[data-drop-empty]').forEach(function (form) {
    form.addEventListener('submit', function () {
      Array.prototype.forEach.call(form.elements, function (field) {
        if (field.name && field.value === '') field.disabled = true
      })
    })
  })
  // Back to a page with its fields disabled (bfcache): enable them again.
  window.addEventListener('pageshow', function () {
    document.querySelectorAll('form[data-drop-empty] [disabled]').forEach(function (field) {
      field.disabled = false
    })
  })
})()
`
