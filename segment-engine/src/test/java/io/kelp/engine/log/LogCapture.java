package io.kelp.engine.log;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/**
 * What one class logs at WARN and above while it is open, as "LEVEL message" lines, for tests that
 * check that an operator is told about something.
 */
final class LogCapture implements AutoCloseable {
  private final Logger logger;
  private final Level levelBefore;
  private final AbstractAppender appender;
  private final List<String> lines = new CopyOnWriteArrayList<>();

  LogCapture(Class<?> source) {
    logger = (Logger) LogManager.getLogger(source);
    levelBefore = logger.getLevel();
    appender =
        new AbstractAppender(
            "capture-" + source.getSimpleName(), null, null, true, Property.EMPTY_ARRAY) {
          @Override
          public void append(LogEvent event) {
            lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
          }
        };
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(Level.WARN);
  }

  List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public void close() {
    logger.removeAppender(appender);
    logger.setLevel(levelBefore);
    appender.stop();
  }
}
