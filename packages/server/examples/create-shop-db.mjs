#!/usr/bin/env node
// Makes a small SQLite shop to point the server at: node examples/create-shop-db.mjs shop.db
// (The full benchmark dataset comes from `mcp-db-bench seed`.)
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

const path = process.argv[2] ?? 'shop.db';
if (existsSync(path)) {
  console.error(`${path} exists; choose another name or delete it`);
  process.exit(1);
}
const db = new Database(path);
db.exec(`
  create table customers (id integer primary key, name varchar(100) not null, email varchar(200), vip boolean not null default 0);
  create table orders (
    id integer primary key, customer_id integer not null references customers (id),
    status varchar(20) not null default 'pending', total decimal(10,2) not null, placed_at timestamp not null);
  create index ix_orders_customer_id on orders (customer_id);
  insert into customers values (1, 'Ada', 'ada@example.com', 1), (2, 'Zoë', null, 0), (3, '李雷', 'li@example.com', 0);
  insert into orders values
    (1, 1, 'paid', 12.5, '2024-05-01 09:30:00'), (2, 2, 'shipped', 99, '2024-05-02 18:00:00.25'),
    (3, 1, 'paid', 3.25, '2024-05-03 07:15:00'), (4, 3, 'pending', 42.1, '2024-05-04 12:00:00');
`);
db.close();
console.log(`created ${path}: customers (3 rows), orders (4 rows)`);
