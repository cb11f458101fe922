// The part of the forms' script (forms-script.ts, which puts it inside its own function) that
// shows a representation the service answered: every [data-field] (a <time> in words, as
// html/readable-date.ts writes them, its instant in datetime), every form's field, which also
// becomes the field's initial value (the next merge patch starts from it), the event's location
// after a move, and the ETag as the next write's If-Match. Plain browser JavaScript, as a string.
import { months, weekdays } from './readable-date.ts'

export const stateScript = `  var weekdays = ${JSON.stringify(weekdays)}
  var months = ${JSON.stringify(months)}

  function two(n) {
    return (n < 10 ? '0' : '') + n
  }

  // The same words as the pages (html/readable-date.ts): "Fri 4 Dec 2026, 19:30 UTC".
  function readable(text) {
    var d = new Date(text)
    if (isNaN(d.getTime())) return text
    var s = d.getUTCSeconds()
    var ms = d.getUTCMilliseconds()
    var time = two(d.getUTCHours()) + ':' + two(d.getUTCMinutes())
    if (s || ms) time += ':' + two(s) + (ms ? '.' + String(ms).padStart(3, '0') : '')
    return weekdays[d.getUTCDay()] + ' ' + d.getUTCDate() + ' ' + months[d.getUTCMonth()] + ' ' +
      d.getUTCFullYear() + ', ' + time + ' UTC'
  }

  // What the field held when the page was made or last saved.
  function initial(field) {
    if (field.tagName !== 'SELECT') return field.defaultValue
    var chosen = Array.prototype.find.call(field.options, function (option) {
      return option.defaultSelected
    })
    return chosen ? chosen.value : ''
  }

  // A field shows \`value\` and takes it as its initial value: the next merge patch starts from it.
  function hold(field, value) {
    if (field.tagName === 'SELECT') {
      Array.prototype.forEach.call(field.options, function (option) {
        option.defaultSelected = option.value === value
      })
    } else {
      field.defaultValue = value
    }
    field.value = value
  }

  // The event's location after a move: its link (the links' own rel) names the new one, and
  // following it (a read, without credentials) gives its name and address.
  function showLocation(links) {
    var link = (links || []).find(function (l) {
      return String(l.rel).split(' ').indexOf('/rel/location') >= 0
    })
    var name = document.querySelector('[data-location="name"]')
    var address = document.querySelector('[data-location="address"]')
    if (!link || !name) return
    var id = link.uri.split('/').pop()
    document.querySelectorAll('form[data-write] [name="location_id"]').forEach(function (field) {
      hold(field, id)
    })
    var old = new URL(name.href)
    // The link's uri is relative to the service's base: the part of the old href before it.
    var base = old.pathname.slice(0, old.pathname.lastIndexOf('/locations/'))
    var target = new URL(base + link.uri, old).href
    if (name.href === target) return
    name.href = target
    var option = document.querySelector('select[name="location_id"] option[value="' + id + '"]')
    name.textContent = option ? option.textContent : 'Location ' + id
    if (address) address.textContent = ''
    fetch(target, { headers: { accept: link.type + '+json' }, credentials: 'omit' }).then(function (response) {
      return response.ok ? response.json() : undefined
    }).then(function (location) {
      if (!location) return
      name.textContent = location.name
      if (address) address.textContent = ', ' + location.address
    }, function () {})
  }

  // The state a read or a write answered: every [data-field] shows it (a <time> in words, its
  // instant in datetime), every form's field holds it, and the ETag becomes the next write's If-Match.
  function show(representation, etag) {
    Object.keys(representation).forEach(function (name) {
      var value = representation[name]
      if (typeof value === 'object') return
      document.querySelectorAll('[data-field="' + name + '"]').forEach(function (element) {
        if (element.tagName === 'TIME') {
          element.setAttribute('datetime', String(value))
          element.textContent = readable(String(value))
        } else {
          element.textContent = String(value)
        }
      })
      document.querySelectorAll('form[data-write] [name="' + name + '"]').forEach(function (field) {
        hold(field, String(value))
      })
    })
    showLocation(representation.links)
    var name = representation.title || representation.name
    if (name) document.title = name + ' — Event Resource Service'
    if (etag) {
      document.querySelectorAll('form[data-if-match]').forEach(function (form) {
        form.setAttribute('data-if-match', etag)
      })
      document.querySelectorAll('[data-field="etag"]').forEach(function (element) {
        element.textContent = etag
      })
    }
  }
`
