-- akw_text_outcome(text): a deterministic reading of a final answer, in Russian or English.
-- 'failure' when the agent says the task is not done (failed, stopped, rolled back, does not
-- work), 'partial' when it is done with a stated remainder (not added/done yet, missing, needs a
-- manual step), else 'success'. Failure phrases win over partial ones. A heuristic: the
-- generator's ground truth measures its accuracy (tests/test_models.py).
CREATE OR REPLACE MACRO akw_text_outcome(t) AS
    CASE
        WHEN t IS NULL OR trim(t) = '' THEN 'unknown'
        WHEN regexp_matches(lower(t),
            '(не удалось|не получилось|не вышло|не заработал|не работает|не принимает|не применяется|не компилир'
            || '|не стартует|не обновл[её]н|не выполнен|не смог|не исправлен|остановлен|откатан|откатил|провал'
            || '|could not|couldn''t|\bfailed\b|\bfails\b|did not work|didn''t work|does not work|doesn''t work'
            || '|not updated|not finished|not fixed|unable to|gave up|rolled back|stopped|rejects|does not apply'
            || '|does not compile|^ошибка|^не )')
            THEN 'failure'
        WHEN regexp_matches(lower(t),
            '(, но |, однако|пока не|ещё не|еще не|не добавлен|не сделан|не хватает|вручную|после согласования'
            || '|отдельно|, but |but the |not .* yet|is not done|are not done|missing|still |remaining|manual step'
            || '|after approval|separate fix|for now)')
            THEN 'partial'
        ELSE 'success'
    END;
