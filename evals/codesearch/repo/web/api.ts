import { validateEmail } from "./validators";

export interface Product {
  id: string;
  name: string;
  price: number;
}

type Handler = (req: Request, body: any) => Promise<Response>;

export async function getProduct(id: string, db: Map<string, Product>): Promise<Product | undefined> {
  return db.get(id);
}

export async function listOrders(userId: string, page: number, pageSize = 20): Promise<string[]> {
  // 分页查询用户的订单
  const offset = (page - 1) * pageSize;
  const response = await fetch(`/internal/orders?user=${userId}&offset=${offset}&limit=${pageSize}`);
  return response.json();
}

export const handleCheckout: Handler = async (req, body) => {
  if (!validateEmail(body.email)) {
    return new Response("invalid email", { status: 400 });
  }
  const order = await fetch("/internal/orders", { method: "POST", body: JSON.stringify(body) });
  return new Response(await order.text(), { status: 201 });
};
