package com.shop;

import java.io.IOException;
import java.io.Writer;
import java.time.YearMonth;
import java.util.List;

/** 报表服务：生成月度销售报表并导出 CSV。 */
public class ReportService {
    private final OrderRepository orders;

    public ReportService(OrderRepository orders) {
        this.orders = orders;
    }

    public Report generateMonthlyReport(YearMonth month) {
        List<Order> inMonth = orders.findByMonth(month);
        double revenue = inMonth.stream().mapToDouble(Order::total).sum();
        return new Report(month, inMonth.size(), revenue);
    }

    public void exportCsv(Report report, Writer out) throws IOException {
        out.write("month,orders,revenue\n");
        out.write(report.month() + "," + report.orders() + "," + report.revenue() + "\n");
    }
}
