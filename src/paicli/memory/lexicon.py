"""A small bilingual concept lexicon for the local vector score (data only).

Each line is one concept: words that a developer uses for the same idea in Chinese or English. A word
found in a memory or a query adds the concept as one more vector feature, so "回退" meets "回滚" and
"deploy" meets "部署" without any downloaded model. Words are matched after lower-casing, against
jieba tokens, their crude English stems, identifier parts and the inner bigrams of longer Han words.
"""

from __future__ import annotations

from functools import lru_cache

CONCEPTS = """
部署 发布 上线 发版 deploy release ship rollout
回滚 回退 撤回 rollback revert
评审 审核 审查 批准 review reviewer approve approval
测试 单测 单元测试 测试用例 test spec
模拟 打桩 mock stub fake
压测 压力测试 性能测试 负载测试 load stress benchmark perf performance
日志 log logging logger
保留 留存 retention kept retain
过期 失效 有效期 expire expiry ttl
版本 版本号 version
依赖 依赖包 dependency package
包管理 包管理器 manager
前端 frontend web 界面
后端 backend 服务端 server
数据库 database db
迁移 migration migrate 表结构 schema ddl
索引 index
缓存 cache
配置 config configuration setting
密钥 秘钥 凭证 secret credential vault
密码 password
限制 上限 最大 最多 limit max maximum
超时 timeout
窗口 window 时间段
端到端 e2e end-to-end
分支 branch
提交 commit
合并 merge
命名 起名 名字 naming name
权限 角色 permission role rbac
登录 认证 login signin sso auth authentication
验证码 otp captcha
上传 upload
图片 图像 缩略图 image picture thumbnail
大小 尺寸 size
金额 价格 amount money price
外币 币种 货币 汇率 人民币 currency
退款 refund
订单 order
支付 付款 payment pay
取消 关闭 cancel close
消息 队列 主题 queue topic kafka mq
失败 报错 异常 error fail failure exception
重试 retry
消费 消费者 consume consumer
调用 通信 rpc grpc call invoke
接口 api endpoint
路径 前缀 path prefix route url
许可证 license licence
模型 model
指标 metric auc
监控 看板 dashboard monitor monitoring
告警 报警 alert alerting
值班 oncall on-call
文档 doc docs documentation readme
风格 style tone
回答 回复 reply answer response
简洁 简短 concise brief short
中文 chinese
英文 english
编辑器 editor ide
终端 命令行 shell terminal
构建 编译 build compile
格式化 format formatter
类型 类型标注 typing type
覆盖率 coverage
流水线 持续集成 pipeline ci
镜像 容器 docker container
集群 kubernetes k8s helm
环境 environment env
生产 线上 prod production
预发 staging
本地 local
删除 delete remove
用户 user
邮箱 邮件 email mail
手机号 电话 phone
个人信息 隐私 敏感 pii privacy sensitive
搜索 检索 search
短信 sms
通知 推送 notify notification push
客户端 移动端 app mobile android ios
定时 每天 每晚 每周 schedule cron daily nightly weekly
会议 站会 meeting standup
节假日 假期 holiday
封版 冻结 freeze
训练 train training
查询 查找 query lookup find
不存在 null none empty
大小写 小写 大写 归一化 case lowercase uppercase normalize
返回 return
分页 page pagination
限流 throttle ratelimit
幂等 idempotent idempotency
编码 encoding
时区 timezone utc
日期 date
端口 port
线程池 线程 thread
连接 连接数 连接池 connection pool
链路 追踪 trace tracing
漏洞 vulnerability cve
注入 injection 参数化
哈希 hash bcrypt
令牌 token jwt
跨域 cors
跳板机 内网 vpn bastion
代理 proxy
标签 tag
升级 upgrade
"""


@lru_cache(maxsize=1)
def concept_table() -> dict[str, str]:
    """word -> concept id (the concept's first word)."""
    table: dict[str, str] = {}
    for line in CONCEPTS.strip().splitlines():
        words = line.split()
        if not words:
            continue
        for word in words:
            table.setdefault(word.lower(), words[0])
    return table
