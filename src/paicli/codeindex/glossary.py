"""A bilingual glossary of everyday programming words (data): a Chinese query meets English identifiers through
the concept both name, beside memory's lexicon (memory/lexicon.py). One concept per line; English words are
matched in their stemmed form too (codeindex/tokens.py)."""

from __future__ import annotations

from functools import lru_cache

GLOSSARY = """
库存 存货 stock inventory
提醒 告警 警告 通知 alert warn warning notify notification
报表 报告 report
月度 每月 按月 monthly month
年度 每年 yearly annual year
销售 营收 收入 sales revenue sell
订单 order
购物车 cart basket
商品 产品 product item sku goods
价格 总价 金额 price total amount cost
运费 邮费 shipping freight
税 税费 税率 tax vat
折扣 优惠 优惠券 discount coupon promo
支付 付款 扣款 pay payment charge
退款 refund
取消 撤销 cancel abort
重试 retry backoff
用户 user account
登录 登入 login signin
注册 signup register
登出 退出 logout signout
密码 password passwd
哈希 散列 hash digest
令牌 token jwt
会话 session
权限 permission authorize
加密 encrypt cipher
解密 decrypt
签名 sign signature
校验 验证 检查 validate validation verify check
邮箱 电子邮件 邮件 email mail smtp
手机号 手机 电话 phone mobile
短信 sms
图片 图像 image picture photo
缩略图 thumbnail
上传 upload
下载 download
文件 file
目录 文件夹 directory folder dir
读取 加载 读 read load
写入 保存 写 write save store
删除 移除 delete remove
新增 添加 增加 加入 add insert append
更新 修改 update modify edit
查询 查找 搜索 检索 query search find lookup
排序 排名 sort rank order
分页 页 page paginate pagination
过滤 筛选 filter
解析 parse parser
格式化 format
序列化 serialize
反序列化 deserialize
转换 换算 convert transform
汇率 currency exchange rate
日期 date
时间 time datetime timestamp
时区 timezone
周末 weekend
配送 送达 交付 delivery deliver
预计 估算 估计 estimate
计算 compute calculate calc
配置 设置 config configuration settings setting
环境变量 environment env
日志 log logging logger
轮转 滚动 rotate rotation
数据库 db database sql
连接池 pool
连接 connection connect
迁移 migration migrate
事务 transaction
缓存 cache
过期 失效 expire expiry ttl
淘汰 驱逐 evict eviction
限流 限速 rate limit throttle limiter bucket
队列 queue
定时 调度 计划任务 schedule scheduler cron
任务 作业 job task
后台 background
线程 thread
并发 concurrent concurrency
锁 lock mutex
异步 async await
请求 request
响应 response
接口 api endpoint handler
路由 route router
结算 checkout
翻译 国际化 本地化 translate translation i18n locale
模板 template
发送 send
接收 receive
导出 export
导入 import
报错 错误 异常 error exception
测试 test
初始化 init initialize setup
启动 start startup boot
停止 关闭 stop shutdown close
"""


@lru_cache(maxsize=1)
def glossary_table() -> dict[str, str]:
    """word -> concept id (the concept's first word)."""
    table: dict[str, str] = {}
    for line in GLOSSARY.strip().splitlines():
        words = line.split()
        for word in words:
            table.setdefault(word.lower(), words[0])
    return table
