// Patio console: the one script, an enhancement only (every page works without it). Each element
// with data-copy gets a button that copies its text; data-copy is the button's label and
// data-copied what it says once done, both in the page's language.
document.querySelectorAll("[data-copy]").forEach(function (el) {
  if (!navigator.clipboard) {
    return;
  }
  var button = document.createElement("button");
  button.type = "button";
  button.className = "secondary copy";
  button.textContent = el.dataset.copy;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(el.textContent.trim()).then(function () {
      button.textContent = el.dataset.copied;
    });
  });
  el.insertAdjacentElement("afterend", button);
});
