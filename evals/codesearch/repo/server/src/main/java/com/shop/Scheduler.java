package com.shop;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** Runs background jobs at a fixed rate (nightly reports, stock checks). */
public class Scheduler {
    private final ScheduledExecutorService pool = Executors.newScheduledThreadPool(2);
    private final Map<String, ScheduledFuture<?>> jobs = new ConcurrentHashMap<>();

    public void scheduleJob(String name, Runnable job, long periodMinutes) {
        jobs.put(name, pool.scheduleAtFixedRate(job, 0, periodMinutes, TimeUnit.MINUTES));
    }

    public boolean cancelJob(String name) {
        ScheduledFuture<?> future = jobs.remove(name);
        return future != null && future.cancel(false);
    }
}
