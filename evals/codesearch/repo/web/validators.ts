const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const PHONE = /^1[3-9]\d{9}$/;

/** Whether the text looks like an e-mail address. */
export function validateEmail(text: string): boolean {
  return EMAIL.test(text.trim());
}

/** 校验中国大陆手机号码 */
export function validatePhone(text: string): boolean {
  return PHONE.test(text.trim());
}

export function validatePassword(text: string): string[] {
  const problems: string[] = [];
  if (text.length < 8) problems.push("too short");
  if (!/[0-9]/.test(text)) problems.push("needs a digit");
  return problems;
}
