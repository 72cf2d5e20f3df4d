import qrcode from 'qrcode-generator';

/** A QR code as a GIF data URL, made in the page: nothing leaves the device to draw it. */
export function qrDataUrl(text: string): string {
  const code = qrcode(0, 'M');
  // The encoder takes one character per byte: hand it the UTF-8 bytes, so any text scans back as written.
  code.addData(String.fromCharCode(...new TextEncoder().encode(text)), 'Byte');
  code.make();
  return code.createDataURL(6, 2);
}
