const MESSAGES: Record<string, Record<string, string>> = {
  "zh-CN": { checkout: "结算", cart: "购物车" },
  "en-US": { checkout: "Checkout", cart: "Cart" },
};

export function translate(key: string, locale: string): string {
  return MESSAGES[locale]?.[key] ?? MESSAGES["en-US"][key] ?? key;
}

export function formatDate(date: Date, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "Asia/Shanghai" }).format(date);
}
