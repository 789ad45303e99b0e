// Progressive enhancement: after a passkey is added, show the page again with it listed (SPEC AD-3).
(function () {
  "use strict";
  document.addEventListener("otp_webauthn.register_complete", function () {
    window.location.reload();
  });
})();
