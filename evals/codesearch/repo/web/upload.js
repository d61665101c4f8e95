const MAX_BYTES = 5 * 1024 * 1024;

/** 上传图片：检查大小，生成缩略图后上传 */
export async function uploadImage(file, endpoint) {
  if (file.size > MAX_BYTES) {
    throw new Error("image larger than 5 MB");
  }
  const thumbnail = await resizeImage(file, 200);
  const form = new FormData();
  form.append("image", file);
  form.append("thumbnail", thumbnail);
  return fetch(endpoint, { method: "POST", body: form });
}

export async function resizeImage(file, width) {
  const bitmap = await createImageBitmap(file);
  const canvas = new OffscreenCanvas(width, (bitmap.height * width) / bitmap.width);
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  return canvas.convertToBlob({ type: "image/jpeg" });
}
