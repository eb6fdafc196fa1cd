// Passkeys on the sign-in and account pages (no inline script: the pages' CSP allows scripts from this origin only).
// Each <form data-passkey> asks its data-options URL for a challenge, lets the browser create or use a passkey,
// and posts the answer in its "response" field. Without WebAuthn the forms stay hidden. The messages it shows come
// from the page (data-not-used, data-copied), in the page's language.
(function () {
  'use strict';
  var webauthn = window.SimpleWebAuthnBrowser;
  if (!webauthn || !webauthn.browserSupportsWebAuthn()) return;

  function fail(form, error) {
    var box = form.querySelector('[data-passkey-error]');
    if (!box || (error && error.name === 'AbortError')) return;
    // The words come from the page, in its language (data-not-used on the form; the refusal from the server).
    box.textContent = (error && error.refusal) || form.dataset.notUsed;
    box.hidden = false;
  }

  // A refusal the server words itself (too many passkey requests: it says how long to wait).
  function refused(answer) {
    return answer.json().then(
      function (body) {
        var error = new Error('options ' + answer.status);
        error.refusal = body && typeof body.message === 'string' ? body.message : undefined;
        throw error;
      },
      function () {
        throw new Error('options ' + answer.status);
      },
    );
  }

  function run(form, autofill) {
    var body = new URLSearchParams(new FormData(form));
    body.delete('response');
    return fetch(form.dataset.options, { method: 'POST', body: body, credentials: 'same-origin' })
      .then(function (answer) {
        // The account page wants a fresh sign-in before a change: go and make it, then come back.
        if (answer.status === 401 && form.dataset.passkey === 'register') {
          window.location.assign('/account/confirm');
          return new Promise(function () {});
        }
        if (answer.status === 429) return refused(answer);
        if (!answer.ok) throw new Error('options ' + answer.status);
        return answer.json();
      })
      .then(function (optionsJSON) {
        return form.dataset.passkey === 'register'
          ? webauthn.startRegistration({ optionsJSON: optionsJSON })
          : webauthn.startAuthentication({ optionsJSON: optionsJSON, useBrowserAutofill: autofill });
      })
      .then(function (result) {
        form.elements.response.value = JSON.stringify(result);
        form.submit();
      });
  }

  document.querySelectorAll('form[data-passkey]').forEach(function (form) {
    form.hidden = false;
    form.addEventListener('submit', function (event) {
      if (form.elements.response.value) return;
      event.preventDefault();
      run(form, false).catch(function (error) {
        fail(form, error);
      });
    });
    if (form.hasAttribute('data-autofill')) {
      webauthn.browserSupportsWebAuthnAutofill().then(function (supported) {
        if (supported)
          run(form, true).catch(function () {
            /* autofill was cancelled or replaced by the button */
          });
      });
    }
  });

  // Recovery codes: a copy button where the clipboard is available.
  document.querySelectorAll('[data-copy]').forEach(function (button) {
    if (!navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      var source = document.getElementById(button.dataset.copy);
      navigator.clipboard.writeText(source.value || source.textContent).then(function () {
        button.textContent = button.dataset.copied;
      });
    });
  });
})();
