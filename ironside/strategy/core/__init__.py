"""The site layer's vocabulary, which every stage of its pipeline reads
and which imports nothing else of the site layer.

``model``       groups of nodes, the tasks they run, stages, references:
                one model for every source of groups and tasks
``selectors``   which nodes a group has (and where nodes keep that data)
``criteria``    a group's success criteria
``item_graph``  the graph of groups, stages and tasks and the order
                between them: the one place it is built
``paths``       places inside a document (a path, its field, its line)
"""
