"""Files dropped on the chat or pasted into the composer attach as with the picker; a large
photo reaches the model at most 2048 px on its long side, and counts against the budget only
at that size."""

from __future__ import annotations

from pages import chat_request_bodies, host_page, widget
from playwright.sync_api import Page, expect

# A 4000 x 3000 photo (a JPEG of a gradient: over 512 KB at full size), dropped on the chat.
DROP_PHOTO = """async () => {
  const canvas = new OffscreenCanvas(4000, 3000);
  const context = canvas.getContext('2d');
  for (let x = 0; x < 4000; x += 50) {
    context.fillStyle = `hsl(${x % 360}, 70%, ${30 + (x % 400) / 10}%)`;
    context.fillRect(x, 0, 50, 3000);
  }
  for (let i = 0; i < 20000; i++) {
    context.fillStyle = `rgb(${i % 255}, ${(i * 7) % 255}, ${(i * 13) % 255})`;
    context.fillRect((i * 97) % 4000, (i * 61) % 3000, 3, 3);
  }
  const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.95 });
  window.originalBytes = blob.size;
  const files = new DataTransfer();
  files.items.add(new File([blob], 'photo.jpg', { type: 'image/jpeg' }));
  const chat = document.querySelector('chat-widget').shadowRoot.querySelector('.chat');
  const how = { dataTransfer: files, bubbles: true, cancelable: true, composed: true };
  chat.dispatchEvent(new DragEvent('dragover', how));
  chat.dispatchEvent(new DragEvent('drop', how));
}"""
PASTE = """([name, text]) => {
  const data = new DataTransfer();
  if (name) data.items.add(new File([text], name, { type: 'text/plain' }));
  else data.setData('text/plain', text);
  const root = document.querySelector('chat-widget').shadowRoot;
  const how = { clipboardData: data, bubbles: true, cancelable: true, composed: true };
  root.querySelector('.composer textarea').dispatchEvent(new ClipboardEvent('paste', how));
}"""
SIZE = """async url => {
  const bitmap = await createImageBitmap(await (await fetch(url)).blob());
  return [bitmap.width, bitmap.height];
}"""


def test_a_dropped_photo_reaches_the_model_at_most_2048_px(page: Page) -> None:
    bodies = chat_request_bodies(page)
    host_page(page, 'history="memory"')
    page.evaluate(DROP_PHOTO)
    files = page.locator("chat-widget .files li")
    expect(files).to_have_text(["📎 photo.jpg×"])
    assert page.evaluate("window.originalBytes") > 512 * 1024  # too big for the budget as it was
    widget(page).send("What is in this photo?")
    parts = bodies[-1]["messages"][-1]["content"]
    [image] = [part for part in parts if part["type"] == "image_url"]
    url = image["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    assert page.evaluate(SIZE, url) == [2048, 1536]


def test_a_pasted_file_attaches_and_pasted_text_stays_text(page: Page) -> None:
    host_page(page, 'history="memory"')
    page.evaluate(PASTE, ["", "just words"])
    expect(page.locator("chat-widget .files li")).to_have_count(0)
    page.evaluate(PASTE, ["notes.txt", "remember the milk"])
    expect(page.locator("chat-widget .files li")).to_have_text(["📎 notes.txt×"])
